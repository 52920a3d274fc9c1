#include "lang/analysis_namespace.h"

#include "tir/builtin.h"

namespace wb::lang {

namespace {

struct Construct {
  const char* name;
  const char* signature;
  const char* doc;
};

// The script-level constructs of TVM's current TensorIR dialect that the parser accepts.
constexpr Construct kConstructs[] = {
    {"prim_func", "@T.prim_func(private=False, s_tir=False)", "Declares a TensorIR function (PrimFunc)."},
    {"Buffer", "T.Buffer(shape, dtype=\"float32\", data=None, strides=None, elem_offset=None, scope=\"global\", align=64, offset_factor=1)",
     "A buffer parameter or a buffer declaration: a typed multi-dimensional view of memory."},
    {"match_buffer", "T.match_buffer(param, shape, dtype=\"float32\", ...)",
     "Binds a buffer to a handle parameter (legacy signature form) or to a region inside a block."},
    {"alloc_buffer", "T.alloc_buffer(shape, dtype=\"float32\", scope=\"global\")", "Allocates a buffer for the rest of the scope."},
    {"sblock_alloc_buffer", "T.sblock_alloc_buffer(shape, dtype=\"float32\", scope=\"global\")",
     "Allocates a buffer owned by the enclosing block (its alloc_buffers)."},
    {"decl_buffer", "T.decl_buffer(shape, dtype=\"float32\", data=None, ...)", "Declares a buffer view over existing data."},
    {"alloc_local", "T.alloc_local(shape, dtype)", "Allocates a buffer in the \"local\" scope."},
    {"alloc_shared", "T.alloc_shared(shape, dtype)", "Allocates a buffer in the \"shared\" scope."},
    {"grid", "T.grid(*extents)", "Nested serial loops, one per extent: `for i, j in T.grid(16, 16):`."},
    {"serial", "T.serial(start, stop=None, annotations=None)", "A serial loop."},
    {"parallel", "T.parallel(start, stop=None, annotations=None)", "A loop whose iterations run in parallel on CPU threads."},
    {"vectorized", "T.vectorized(start, stop=None, annotations=None)", "A loop lowered to vector instructions."},
    {"unroll", "T.unroll(start, stop=None, annotations=None)", "A loop unrolled by code generation."},
    {"thread_binding", "T.thread_binding(start, stop=None, thread=\"threadIdx.x\")", "A loop bound to a GPU thread axis."},
    {"sblock", "with T.sblock(name):", "A block: the unit of scheduling, with iteration variables, read/write regions and a body."},
    {"init", "with T.init():", "The initialization of a reduction block, run on the first iteration of its reduction axes."},
    {"axis", "T.axis", "Block iteration variables: T.axis.spatial, T.axis.reduce, T.axis.remap, ..."},
    {"reads", "T.reads(*regions)", "The buffer regions a block reads."},
    {"writes", "T.writes(*regions)", "The buffer regions a block writes."},
    {"where", "T.where(predicate)", "The predicate of a block realization."},
    {"sblock_attr", "T.sblock_attr(annotations)", "Annotations of the enclosing block."},
    {"func_attr", "T.func_attr(attrs)", "Attributes of the enclosing PrimFunc (e.g. {\"tirx.noalias\": True})."},
    {"launch_thread", "T.launch_thread(thread, extent)", "Launches a GPU thread axis for the rest of the scope."},
    {"env_thread", "T.env_thread(tag)", "A variable standing for a GPU thread axis."},
    {"attr", "with T.attr(node, key, value):", "An AttrStmt over its body."},
    {"let", "x: T.let[T.int32] = value", "Binds a variable for the rest of the scope (a Bind statement)."},
    {"bind", "T.bind(value, var=None)", "Binds a value to a new variable for the rest of the scope."},
    {"evaluate", "T.evaluate(value)", "Evaluates an expression for its side effects."},
    {"Cast", "T.Cast(dtype, value)", "Converts a value to another dtype."},
    {"cast", "T.cast(value, dtype)", "Converts a value to another dtype."},
    {"Select", "T.Select(condition, true_value, false_value)", "Chooses a value; both sides are evaluated."},
    {"max", "T.max(a, b)", "The larger of two values."},
    {"min", "T.min(a, b)", "The smaller of two values."},
    {"floordiv", "T.floordiv(a, b)", "Division rounding toward negative infinity."},
    {"floormod", "T.floormod(a, b)", "Remainder of floordiv (the sign of the divisor)."},
    {"truncdiv", "T.truncdiv(a, b)", "Division rounding toward zero."},
    {"truncmod", "T.truncmod(a, b)", "Remainder of truncdiv (the sign of the dividend)."},
    {"handle", "T.handle(dtype=None, scope=\"global\")", "A pointer type; as a parameter annotation, an opaque handle."},
    {"Ramp", "T.Ramp(base, stride, lanes)", "The vector base, base + stride, ..."},
    {"Broadcast", "T.Broadcast(value, lanes)", "A vector of copies of a scalar."},
};

constexpr const char* kDTypes[] = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                   "uint64", "float16", "bfloat16", "float32", "float64",
                                   "float8_e4m3fn", "float8_e5m2"};

}  // namespace

const std::vector<NamespaceMember>& TNamespaceMembers() {
  static const std::vector<NamespaceMember> members = [] {
    std::vector<NamespaceMember> out;
    for (const Construct& c : kConstructs) out.push_back({c.name, c.signature, c.doc, MemberKind::kConstruct});
    for (const char* dtype : kDTypes) {
      out.push_back({dtype, std::string("T.") + dtype + "(value=None)",
                     std::string("The ") + dtype + " dtype: a constant `T." + dtype +
                         "(1)`, a variable `T." + dtype + "()`, or an annotation `x: T." + dtype + "`.",
                     MemberKind::kDType});
    }
    for (const tir::OpInfo* op : tir::AllOps()) {
      if (op->script_name.empty()) continue;
      std::string args;
      if (op->num_inputs < 0) {
        args = "*args";
      } else {
        for (int i = 0; i < op->num_inputs; ++i) args += (i ? ", " : "") + std::string(1, char('a' + i));
      }
      std::string doc = op->doc.empty() ? op->name : op->doc;
      doc += " (`" + op->name + "`" + (op->pure ? "" : ", has side effects") + ")";
      out.push_back({op->script_name, "T." + op->script_name + "(" + args + ")", doc, MemberKind::kOp});
    }
    return out;
  }();
  return members;
}

const std::vector<NamespaceMember>& AxisMembers() {
  static const std::vector<NamespaceMember> members = {
      {"spatial", "T.axis.spatial(dom, binding)", "A data-parallel iteration variable of the block.", MemberKind::kConstruct},
      {"S", "T.axis.S(dom, binding)", "Short for T.axis.spatial.", MemberKind::kConstruct},
      {"reduce", "T.axis.reduce(dom, binding)", "A reduction iteration variable of the block.", MemberKind::kConstruct},
      {"R", "T.axis.R(dom, binding)", "Short for T.axis.reduce.", MemberKind::kConstruct},
      {"scan", "T.axis.scan(dom, binding)", "An ordered (scan) iteration variable.", MemberKind::kConstruct},
      {"opaque", "T.axis.opaque(dom, binding)", "An iteration variable with opaque semantics.", MemberKind::kConstruct},
      {"remap", "T.axis.remap(kinds, bindings)",
       "Defines several iteration variables at once from loop variables: `vi, vk = T.axis.remap(\"SR\", [i, k])`.",
       MemberKind::kConstruct},
  };
  return members;
}

const NamespaceMember* FindTMember(std::string_view name) {
  for (const NamespaceMember& m : TNamespaceMembers()) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

const std::vector<std::string>& DTypeNames() {
  static const std::vector<std::string> names(std::begin(kDTypes), std::end(kDTypes));
  return names;
}

const std::vector<std::string>& ScopeNames() {
  static const std::vector<std::string> names = {"global", "shared", "shared.dyn", "local", "warp", "wmma.matrix_a",
                                                 "wmma.matrix_b", "wmma.accumulator"};
  return names;
}

}  // namespace wb::lang
