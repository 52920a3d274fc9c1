#include "tir/builtin.h"

#include <map>
#include <memory>
#include <stdexcept>

namespace wb::tir {

namespace {

struct OpSpec {
  const char* name;
  const char* script_name;
  int num_inputs;
  OpResultType result;
  bool pure;
  const char* doc;
};

using R = OpResultType;

// The builtins TVMScript programs use, by TVM's names.
constexpr OpSpec kOps[] = {
    // Math, elementwise on floats.
    {"exp", "exp", 1, R::kSameAsFirstArg, true, "e raised to x"},
    {"exp2", "exp2", 1, R::kSameAsFirstArg, true, "2 raised to x"},
    {"exp10", "exp10", 1, R::kSameAsFirstArg, true, "10 raised to x"},
    {"log", "log", 1, R::kSameAsFirstArg, true, "natural logarithm"},
    {"log2", "log2", 1, R::kSameAsFirstArg, true, "base-2 logarithm"},
    {"log10", "log10", 1, R::kSameAsFirstArg, true, "base-10 logarithm"},
    {"log1p", "log1p", 1, R::kSameAsFirstArg, true, "log(1 + x)"},
    {"sqrt", "sqrt", 1, R::kSameAsFirstArg, true, "square root"},
    {"rsqrt", "rsqrt", 1, R::kSameAsFirstArg, true, "reciprocal square root"},
    {"sin", "sin", 1, R::kSameAsFirstArg, true, "sine"},
    {"cos", "cos", 1, R::kSameAsFirstArg, true, "cosine"},
    {"tan", "tan", 1, R::kSameAsFirstArg, true, "tangent"},
    {"sinh", "sinh", 1, R::kSameAsFirstArg, true, "hyperbolic sine"},
    {"cosh", "cosh", 1, R::kSameAsFirstArg, true, "hyperbolic cosine"},
    {"tanh", "tanh", 1, R::kSameAsFirstArg, true, "hyperbolic tangent"},
    {"asin", "asin", 1, R::kSameAsFirstArg, true, "arc sine"},
    {"acos", "acos", 1, R::kSameAsFirstArg, true, "arc cosine"},
    {"atan", "atan", 1, R::kSameAsFirstArg, true, "arc tangent"},
    {"asinh", "asinh", 1, R::kSameAsFirstArg, true, "inverse hyperbolic sine"},
    {"acosh", "acosh", 1, R::kSameAsFirstArg, true, "inverse hyperbolic cosine"},
    {"atanh", "atanh", 1, R::kSameAsFirstArg, true, "inverse hyperbolic tangent"},
    {"atan2", "atan2", 2, R::kSameAsFirstArg, true, "arc tangent of y/x"},
    {"sigmoid", "sigmoid", 1, R::kSameAsFirstArg, true, "1 / (1 + exp(-x))"},
    {"erf", "erf", 1, R::kSameAsFirstArg, true, "error function"},
    {"fabs", "fabs", 1, R::kSameAsFirstArg, true, "absolute value of a float"},
    {"floor", "floor", 1, R::kSameAsFirstArg, true, "round toward negative infinity"},
    {"ceil", "ceil", 1, R::kSameAsFirstArg, true, "round toward positive infinity"},
    {"round", "round", 1, R::kSameAsFirstArg, true, "round to nearest, ties to even (TVM lowers it to llvm.nearbyint)"},
    {"nearbyint", "nearbyint", 1, R::kSameAsFirstArg, true, "round to nearest, ties to even"},
    {"trunc", "trunc", 1, R::kSameAsFirstArg, true, "round toward zero"},
    {"pow", "pow", 2, R::kSameAsFirstArg, true, "x raised to y"},
    {"fmod", "fmod", 2, R::kSameAsFirstArg, true, "floating-point remainder"},
    {"copysign", "copysign", 2, R::kSameAsFirstArg, true, "magnitude of x, sign of y"},
    {"hypot", "hypot", 2, R::kSameAsFirstArg, true, "sqrt(x*x + y*y)"},
    {"ldexp", "ldexp", 2, R::kSameAsFirstArg, true, "x * 2^e"},
    {"nextafter", "nextafter", 2, R::kSameAsFirstArg, true, "next representable value"},
    {"isnan", "isnan", 1, R::kBool, true, "x is NaN"},
    {"isinf", "isinf", 1, R::kBool, true, "x is infinite"},
    {"isfinite", "isfinite", 1, R::kBool, true, "x is finite"},
    {"popcount", "popcount", 1, R::kSameAsFirstArg, true, "number of set bits"},
    {"clz", "clz", 1, R::kSameAsFirstArg, true, "count leading zeros"},
    {"q_multiply_shift", "q_multiply_shift", 4, R::kSameAsFirstArg, true,
     "fixed-point multiply and shift"},
    {"q_multiply_shift_per_axis", "q_multiply_shift_per_axis", 7, R::kInt32, true,
     "fixed-point multiply and shift with per-channel shifts (x, y, ls, rs, q, is_lshift_required, "
     "is_rshift_required)"},
    // Bit manipulation.
    {"bitwise_and", "bitwise_and", 2, R::kSameAsFirstArg, true, "a & b"},
    {"bitwise_or", "bitwise_or", 2, R::kSameAsFirstArg, true, "a | b"},
    {"bitwise_xor", "bitwise_xor", 2, R::kSameAsFirstArg, true, "a ^ b"},
    {"bitwise_not", "bitwise_not", 1, R::kSameAsFirstArg, true, "~a"},
    {"shift_left", "shift_left", 2, R::kSameAsFirstArg, true, "a << b"},
    {"shift_right", "shift_right", 2, R::kSameAsFirstArg, true, "a >> b"},
    // Control and data movement.
    {"if_then_else", "if_then_else", 3, R::kSecondArg, true,
     "cond ? a : b, evaluating only the taken branch"},
    {"reinterpret", "reinterpret", 1, R::kExplicit, true, "reinterpret the bits as another type"},
    {"likely", "likely", 1, R::kSameAsFirstArg, true, "branch hint"},
    {"assume", "assume", 1, R::kBool, false, "assume a condition holds"},
    {"undef", "undef", 0, R::kInt32, true, "an undefined value"},
    {"address_of", "address_of", 1, R::kHandle, true, "the address of a buffer element"},
    {"isnullptr", "isnullptr", 1, R::kBool, true, "the handle is null"},
    {"tvm_thread_invariant", "tvm_thread_invariant", 1, R::kSameAsFirstArg, true,
     "a condition with the same value on every thread"},
    {"tvm_static_handle", "tvm_static_handle", 0, R::kHandle, false,
     "a handle to a static variable of the module"},
    {"tvm_context_id", "tvm_context_id", 0, R::kInt32, false, "the id of the running context"},
    {"start_profile_intrinsic", "start_profile_intrinsic", 1, R::kVoid, false,
     "start the profiling region with this id"},
    {"end_profile_intrinsic", "end_profile_intrinsic", 1, R::kVoid, false,
     "end the profiling region with this id"},
    {"break_loop", "break_loop", 0, R::kInt32, false, "leave the innermost loop"},
    {"continue_loop", "continue_loop", 0, R::kInt32, false, "next iteration of the loop"},
    {"ret", "ret", 1, R::kSameAsFirstArg, false, "return a value from the function"},
    // Calls out.
    {"call_extern", "call_extern", -1, R::kExplicit, false, "call an external C function"},
    {"call_pure_extern", "call_pure_extern", -1, R::kExplicit, true,
     "call a side-effect-free external C function"},
    {"call_llvm_intrin", "call_llvm_intrin", -1, R::kExplicit, false, "call an LLVM intrinsic"},
    {"call_llvm_pure_intrin", "call_llvm_pure_intrin", -1, R::kExplicit, true,
     "call a pure LLVM intrinsic"},
    {"tvm_call_packed", "call_packed", -1, R::kInt32, false, "call a packed function"},
    {"tvm_call_cpacked", "call_cpacked", -1, R::kInt32, false, "call a C packed function"},
    {"tvm_struct_get", "tvm_struct_get", 3, R::kExplicitLast, true,
     "read a field of a runtime structure"},
    {"tvm_struct_set", "tvm_struct_set", 4, R::kInt32, false,
     "write a field of a runtime structure"},
    {"tvm_stack_alloca", "tvm_stack_alloca", 2, R::kHandle, false, "allocate on the stack"},
    {"tvm_stack_make_shape", "tvm_stack_make_shape", -1, R::kHandle, false,
     "a shape array of the given dims on the stack"},
    {"tvm_stack_make_array", "tvm_stack_make_array", 6, R::kHandle, false,
     "a DLTensor on the stack: (data, shape, strides, ndim, element dtype value, elem_offset)"},
    {"tvm_thread_allreduce", "tvm_thread_allreduce", -1, R::kHandle, false,
     "cross-thread reduction"},
    {"tvm_storage_sync", "tvm_storage_sync", -1, R::kInt32, false, "memory barrier"},
    {"tvm_access_ptr", "tvm_access_ptr", 5, R::kHandle, false,
     "a pointer into a buffer: (type_annotation, data, offset, extent, read 1 | write 2)"},
    {"type_annotation", "type_annotation", 0, R::kExplicit, true,
     "a value standing for its dtype alone (tvm_access_ptr's element type)"},
    // Tensor-core fragments (CUDA wmma), as TVM's opaque intrinsics.
    {"tvm_fill_fragment", "tvm_fill_fragment", 6, R::kHandle, false,
     "fill a wmma fragment (fragment, m, n, k, index, value)"},
    {"tvm_load_matrix_sync", "tvm_load_matrix_sync", 8, R::kHandle, false,
     "load a wmma fragment (fragment, m, n, k, index, pointer, stride, layout)"},
    {"tvm_store_matrix_sync", "tvm_store_matrix_sync", 8, R::kHandle, false,
     "store a wmma fragment (fragment, m, n, k, index, pointer, stride, layout)"},
    {"tvm_mma_sync", "tvm_mma_sync", 8, R::kHandle, false,
     "wmma multiply-accumulate (d, d_index, a, a_index, b, b_index, c, c_index)"},
    {"tvm_bmma_sync", "tvm_bmma_sync", 8, R::kHandle, false,
     "binary wmma multiply-accumulate (d, d_index, a, a_index, b, b_index, c, c_index)"},
    // GPU warp shuffles, as TVM's (mask, value, lane|delta, width, warp_size): the value of
    // another lane of the same warp segment of `width` lanes; out-of-segment sources give the
    // thread's own value. Not pure: every lane of the warp takes part at once.
    {"tvm_warp_shuffle", "tvm_warp_shuffle", 5, R::kValueArg, false,
     "warp shuffle: the value of lane `lane` of this thread's warp segment"},
    {"tvm_warp_shuffle_up", "tvm_warp_shuffle_up", 5, R::kValueArg, false,
     "warp shuffle: the value of the lane `delta` below in the segment"},
    {"tvm_warp_shuffle_down", "tvm_warp_shuffle_down", 5, R::kValueArg, false,
     "warp shuffle: the value of the lane `delta` above in the segment"},
    {"tvm_warp_activemask", "tvm_warp_activemask", 0, R::kUInt32, false,
     "the mask of the warp's active lanes"},
    {"vectorhigh", "vectorhigh", 1, R::kExplicit, true, "upper half of a vector"},
    {"vectorlow", "vectorlow", 1, R::kExplicit, true, "lower half of a vector"},
    {"vectorcombine", "vectorcombine", 2, R::kExplicit, true, "concatenate two vectors"},
    {"dp4a", "dp4a", 3, R::kExplicit, true, "4-way int8 dot product and accumulate"},
    {"get_active_lane_mask", "get_active_lane_mask", 2, R::kExplicit, true,
     "predicate mask for lanes below a bound"},
    {"vscale", "vscale", 0, R::kInt32, true, "the vector-length multiplier"},
    {"prefetch", "prefetch", -1, R::kInt32, false, "prefetch memory"},
};

struct Registry {
  std::vector<std::unique_ptr<OpInfo>> infos;
  std::map<std::string, const OpInfo*, std::less<>> by_name;
  std::map<std::string, const OpInfo*, std::less<>> by_script_name;
  std::map<const ir::OpNode*, const OpInfo*> by_node;
  std::vector<const OpInfo*> all;

  Registry() {
    for (const auto& spec : kOps) {
      auto info = std::make_unique<OpInfo>();
      info->name = std::string("tirx.") + spec.name;
      info->script_name = spec.script_name;
      info->num_inputs = spec.num_inputs;
      info->result = spec.result;
      info->pure = spec.pure;
      info->doc = spec.doc;
      ir::NodeBuilder<ir::OpNode> node;
      node->name = info->name;
      info->op = node.Finish();
      by_name[info->name] = info.get();
      by_script_name[info->script_name] = info.get();
      by_node[info->op.get()] = info.get();
      all.push_back(info.get());
      infos.push_back(std::move(info));
    }
  }
};

const Registry& GetRegistry() {
  static const Registry registry;
  return registry;
}

}  // namespace

const OpInfo* FindOp(std::string_view name) {
  const auto& r = GetRegistry();
  if (auto it = r.by_name.find(name); it != r.by_name.end()) return it->second;
  return FindOpByScriptName(name);
}

const OpInfo* FindOpByScriptName(std::string_view script_name) {
  const auto& r = GetRegistry();
  if (auto it = r.by_script_name.find(script_name); it != r.by_script_name.end()) {
    return it->second;
  }
  return nullptr;
}

const OpInfo* InfoOf(const ir::Op& op) {
  if (!op.defined()) return nullptr;
  const auto& r = GetRegistry();
  if (auto it = r.by_node.find(op.get()); it != r.by_node.end()) return it->second;
  // An Op loaded from JSON is a different object with the same name.
  return FindOp(op->name);
}

ir::Op GetOp(std::string_view name) {
  const OpInfo* info = FindOp(name);
  if (!info) throw std::logic_error("unknown builtin op " + std::string(name));
  return info->op;
}

const std::vector<const OpInfo*>& AllOps() { return GetRegistry().all; }

}  // namespace wb::tir
