// The metadata section TVM prints with show_meta=True, `metadata = tvm.ir.load_json("""...""")`,
// for the Relax constants that have no inline form. Its text is tvm-ffi's JSON object graph
// (ToJSONGraph: `root_index`, `nodes` of {"type", "data"}, `metadata.tvm_version`) of a map
// {"relax.expr.Constant": [Constant, ...]}; each constant's `data` field is an `ffi.Tensor` node
// whose data is TVM's binary tensor format (SaveDLTensor: magic, reserved, CPU device, ndim,
// dtype, shape, byte count, bytes) in base64. Large weights stay one base64 string per tensor.
#pragma once

#include <string>
#include <vector>

#include "relax/expr.h"

namespace wb::script {

// The JSON text for `constants` (relax::Constant nodes), indented as TVM's printer does. Each
// Constant node lists its `data` field only: `span` and `ty` have defaults in TVM's reflection.
std::string ConstantsMetadataJSON(const std::vector<ir::ObjectRef>& constants);

// The constants under "relax.expr.Constant" in a metadata JSON text, in order; entries of other
// keys are left out; each constant gets `span`. Throws std::invalid_argument saying what is malformed and where.
std::vector<relax::Constant> ParseConstantsMetadata(const std::string& json, Span span = {});

}  // namespace wb::script
