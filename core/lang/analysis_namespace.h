// What the `T.` namespace of TVMScript offers, for hover and completion: the script constructs
// the parser understands (T.prim_func, T.Buffer, T.grid, T.sblock, ...), every builtin op of
// tir/builtin.h with its arity and doc, and the dtype constructors; and the `T.axis.` kinds.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace wb::lang {

enum class MemberKind { kConstruct, kOp, kDType };

struct NamespaceMember {
  std::string name;       // "grid"
  std::string signature;  // "T.grid(*extents)"
  std::string doc;
  MemberKind kind = MemberKind::kConstruct;
};

const std::vector<NamespaceMember>& TNamespaceMembers();
const std::vector<NamespaceMember>& AxisMembers();
const NamespaceMember* FindTMember(std::string_view name);
// `R.`: Relax script constructs and every registered Relax op (`R.nn.conv2d`), with TVM's
// argument and attribute names (analysis_namespace_relax.cpp).
const std::vector<NamespaceMember>& RNamespaceMembers();
// `I.`: the IRModule constructs.
const std::vector<NamespaceMember>& INamespaceMembers();
// `sch.`: TVM's schedule methods, for recipe files. Listed by TVM's API, whether or not this
// build implements them yet: replaying a recipe says which one is missing.
const std::vector<NamespaceMember>& ScheduleMembers();
// The member `name` of namespace `ns` ("T", "R", "I", "sch"), or null.
const NamespaceMember* FindMember(std::string_view ns, std::string_view name);
// dtype strings ("float32", "int8", ...) and storage scopes ("global", "shared", ...).
const std::vector<std::string>& DTypeNames();
const std::vector<std::string>& ScopeNames();

}  // namespace wb::lang
