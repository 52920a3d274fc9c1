// The named TIR lowering pipeline "tir_lowering": TVM's order of the passes that take a
// scheduled PrimFunc (blocks, multi-dimensional buffers, loop kinds) to the flat form code
// generators consume. Each pass is registered in its own file; this only names the sequence,
// so the GUI, the LSP server and `--pipeline tir_lowering` show every step as a snapshot.
#include "transform/registry.h"

namespace wb::transform {

namespace {

// MakePackedAPI (argument checks and unpacking for the runtime's calling convention) comes
// last, after LowerIntrin; it belongs to the code generator's branch and is appended there.
const char* kTirLowering =
    "LowerInitBlock, PlanAndUpdateBufferAllocationLocation, ConvertBlocksToOpaque, "
    "CompactBufferAllocation, LowerMatchBuffer, LowerOpaqueBlock, FlattenBuffer, Simplify, "
    "VectorizeLoop, UnrollLoop, RemoveNoOp, StorageRewrite, LowerIntrin";

struct TirLoweringRegistrar {
  TirLoweringRegistrar() {
    PassRegistry::Global().RegisterPipeline(
        "tir_lowering", kTirLowering,
        "lowers scheduled TensorIR to flat TIR for code generation, in TVM's order");
  }
} registrar;

}  // namespace

}  // namespace wb::transform
