// IR as JSON: a lossless, versioned serialization of any node graph, for saving modules, golden
// files and exchanging IR between the workbench processes.
//
//   {"root": 7, "nodes": [{"type": "tirx.Var", "fields": {...}}, ...], "version": "workbench-0.1"}
//
// Nodes are listed once each, children before the nodes that refer to them, and referenced by
// index, so shared subtrees stay shared and a variable is one object again after loading. Fields
// are written under their reflection names (Object::VisitFields): node references as an index or
// null, lists as arrays of those, attribute dictionaries as objects, data types as their name
// ("float32x4"), doubles as decimal strings that round-trip exactly ("0.1", "nan", "-inf").
// Spans are not saved.
#pragma once

#include <string>

#include "ir/object.h"

namespace wb::ir {

// The format version SaveJSON writes and LoadJSON reads.
inline constexpr const char* kJSONVersion = "workbench-0.1";

// Serializes the graph under `node` (null saves a null root). Strings that are not valid UTF-8
// have their invalid bytes replaced by U+FFFD, since JSON text cannot carry them.
std::string SaveJSON(const ObjectRef& node);

// Rebuilds the graph saved by SaveJSON. On malformed input (not JSON, unknown node type, a field
// of the wrong kind, a reference to a node that is not listed before) returns null and, when
// `error` is given, sets it to a message that names the node and the field; never throws. A saved
// null root loads as null with an empty error.
ObjectRef LoadJSON(const std::string& text, std::string* error = nullptr);

}  // namespace wb::ir
