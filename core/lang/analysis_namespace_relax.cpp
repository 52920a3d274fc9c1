// The `R.`, `I.` and `sch.` namespaces for completion and signature help. Relax ops come from the
// op registry, so an op another module registers appears here with no change.
#include "lang/analysis_namespace.h"
#include "relax/op/registry.h"

namespace wb::lang {

namespace {

struct Construct {
  const char* name;
  const char* signature;
  const char* doc;
};

constexpr Construct kRelaxConstructs[] = {
    {"function", "@R.function(pure=True, private=False)", "Declares a Relax function."},
    {"Tensor", "R.Tensor(shape=None, dtype=\"float32\", ndim=-1)", "The type of a tensor, with a symbolic shape."},
    {"Shape", "R.Shape(values=None, ndim=-1)", "The type of a shape value."},
    {"Tuple", "R.Tuple(*fields)", "The type of a tuple."},
    {"Object", "R.Object", "The type of any object."},
    {"Prim", "R.Prim(dtype=None, value=None)", "The type of a scalar (PrimValue)."},
    {"Callable", "R.Callable(params, ret, purity=True)", "The type of a function."},
    {"dataflow", "with R.dataflow():", "A dataflow block: pure bindings whose outputs are given by R.output."},
    {"output", "R.output(*vars)", "The variables a dataflow block exposes."},
    {"call_tir", "R.call_tir(gvar, args, out_ty, tir_vars=None)",
     "Calls a PrimFunc in destination-passing style; `out_ty` is the type of the output."},
    {"const", "R.const(value, dtype=None)", "A constant tensor."},
    {"match_cast", "R.match_cast(value, type)", "Checks a value against a type and binds its symbolic shape variables."},
    {"func_attr", "R.func_attr(attrs)", "Attributes of the enclosing Relax function."},
    {"ExternFunc", "R.ExternFunc(global_symbol, type=None)", "A function provided by the runtime."},
    {"shape", "R.shape(values)", "A shape value."},
    {"prim_value", "R.prim_value(value)", "A scalar value."},
    {"str", "R.str(value)", "A string immediate."},
    {"dtype", "R.dtype(value)", "A dtype immediate."},
};

constexpr Construct kIRConstructs[] = {
    {"ir_module", "@I.ir_module", "Declares an IRModule: a class whose methods are its PrimFuncs and Relax functions."},
    {"module_attrs", "I.module_attrs(attrs)", "Attributes of the module."},
    {"module_global_infos", "I.module_global_infos(infos)", "Global infos of the module (e.g. virtual devices)."},
    {"dummy_global_info", "I.dummy_global_info()", "A placeholder global info."},
    {"vdevice", "I.vdevice(target=None, vdevice_id=0, memory_scope=\"global\")", "A virtual device."},
};

// TVM's tvm.s_tir.Schedule methods, in its argument names and defaults.
constexpr Construct kScheduleMethods[] = {
    {"get_sblock", "sch.get_sblock(name, func_name=None)", "The block called `name` (in `func_name`, else the function worked on)."},
    {"get_loops", "sch.get_loops(block)", "The loops around a block up to the enclosing block, outer to inner."},
    {"get_child_blocks", "sch.get_child_blocks(block_or_loop)", "The blocks directly under a block or loop."},
    {"get_producers", "sch.get_producers(block)", "The blocks that write what `block` reads."},
    {"get_consumers", "sch.get_consumers(block)", "The blocks that read what `block` writes."},
    {"work_on", "sch.work_on(func_name)", "The PrimFunc later calls work on."},
    {"split", "sch.split(loop, factors, preserve_unit_iters=True, disable_predication=False)",
     "Splits a loop into nested loops; one factor may be None (inferred)."},
    {"fuse", "sch.fuse(*loops, preserve_unit_iters=True)", "Fuses consecutive loops into one."},
    {"reorder", "sch.reorder(*ordered_loops)", "Reorders loops of one loop nest."},
    {"reorder_block_iter_var", "sch.reorder_block_iter_var(block, new_order)", "Reorders a block's iteration variables."},
    {"add_unit_loop", "sch.add_unit_loop(block_or_loop)", "Adds a loop of extent 1 above a block or loop."},
    {"parallel", "sch.parallel(loop)", "Runs a loop's iterations in parallel on CPU threads."},
    {"vectorize", "sch.vectorize(loop)", "Lowers a loop to vector instructions."},
    {"bind", "sch.bind(loop, thread_axis)", "Binds a loop to a GPU thread axis (\"blockIdx.x\", \"threadIdx.x\", ...)."},
    {"unroll", "sch.unroll(loop)", "Unrolls a loop."},
    {"cache_read", "sch.cache_read(block, read_buffer_index, storage_scope, consumer_blocks=None)",
     "Adds a block that copies a read buffer into `storage_scope`."},
    {"cache_write", "sch.cache_write(block, write_buffer_index, storage_scope, consumer_blocks=None)",
     "Adds a block that writes through a buffer in `storage_scope`."},
    {"reindex", "sch.reindex(block, buffer)", "Adds a block that copies a buffer into one indexed by the block's iteration variables."},
    {"compute_at", "sch.compute_at(block, loop, preserve_unit_loops=False, index=-1)",
     "Moves a producer block under a loop of its consumer."},
    {"reverse_compute_at", "sch.reverse_compute_at(block, loop, preserve_unit_loops=False, index=-1)",
     "Moves a consumer block under a loop of its producer."},
    {"compute_inline", "sch.compute_inline(block)", "Inlines a block into its consumers."},
    {"reverse_compute_inline", "sch.reverse_compute_inline(block)", "Inlines a block into its producer."},
    {"decompose_reduction", "sch.decompose_reduction(block, loop)", "Splits a reduction block's init into its own block above `loop`."},
    {"rfactor", "sch.rfactor(loop, factor_axis)", "Factorizes a reduction over `loop` into an intermediate buffer."},
    {"blockize", "sch.blockize(target, preserve_unit_iters=True)", "Wraps the loops under `target` into a new block."},
    {"tensorize", "sch.tensorize(block_or_loop, tensor_intrin, preserve_unit_iters=True)",
     "Replaces a computation by a tensor intrinsic."},
    {"annotate", "sch.annotate(block_or_loop, ann_key, ann_val)", "Adds an annotation to a block or loop."},
    {"unannotate", "sch.unannotate(block_or_loop, ann_key)", "Removes an annotation."},
    {"transform_layout", "sch.transform_layout(block, buffer, index_map, pad_value=None)", "Changes a buffer's layout."},
    {"transform_block_layout", "sch.transform_block_layout(block, index_map)", "Changes a block's iteration space."},
    {"set_axis_separator", "sch.set_axis_separator(block, buffer, axis_separators)", "Sets where a buffer's flattening splits axes."},
    {"set_scope", "sch.set_scope(block, buffer_index, storage_scope)", "Sets the storage scope of a buffer a block writes."},
    {"storage_align", "sch.storage_align(block, buffer_index, axis, factor, offset)", "Pads a buffer axis's stride."},
    {"sample_perfect_tile", "sch.sample_perfect_tile(loop, n, max_innermost_factor=16, decision=None)",
     "Samples tile sizes whose product is the loop's extent."},
    {"sample_categorical", "sch.sample_categorical(candidates, probs, decision=None)", "Samples one of the candidates."},
    {"sample_compute_location", "sch.sample_compute_location(block, decision=None)", "Samples a loop to compute a block at."},
};

std::vector<NamespaceMember> FromConstructs(const Construct* begin, const Construct* end) {
  std::vector<NamespaceMember> out;
  for (const Construct* c = begin; c != end; ++c) out.push_back({c->name, c->signature, c->doc, MemberKind::kConstruct});
  return out;
}

}  // namespace

const std::vector<NamespaceMember>& RNamespaceMembers() {
  static const std::vector<NamespaceMember> members = [] {
    std::vector<NamespaceMember> out = FromConstructs(std::begin(kRelaxConstructs), std::end(kRelaxConstructs));
    for (const relax::OpInfo* op : relax::AllOps()) {
      std::string name = op->script_name();
      if (name.empty()) continue;
      bool taken = false;
      for (const NamespaceMember& m : out) taken |= m.name == name;
      if (taken) continue;  // call_tir and friends are documented above
      std::string args;
      for (size_t i = 0; i < op->arg_names.size(); ++i) {
        if (i) args += ", ";
        if (op->variadic && i + 1 == op->arg_names.size()) args += "*";
        args += op->arg_names[i];
        if (i + op->optional_args >= op->arg_names.size()) args += "=None";
      }
      for (const relax::AttrField& a : op->attrs) args += (args.empty() ? "" : ", ") + a.name + "=...";
      std::string doc = "`" + op->name + "`, " + relax::OpPatternKindName(op->pattern) + (op->pure ? "" : ", impure");
      out.push_back({name, "R." + name + "(" + args + ")", doc, MemberKind::kOp});
    }
    return out;
  }();
  return members;
}

const std::vector<NamespaceMember>& INamespaceMembers() {
  static const std::vector<NamespaceMember> members =
      FromConstructs(std::begin(kIRConstructs), std::end(kIRConstructs));
  return members;
}

const std::vector<NamespaceMember>& ScheduleMembers() {
  static const std::vector<NamespaceMember> members =
      FromConstructs(std::begin(kScheduleMethods), std::end(kScheduleMethods));
  return members;
}

const NamespaceMember* FindMember(std::string_view ns, std::string_view name) {
  const std::vector<NamespaceMember>* list = ns == "T"     ? &TNamespaceMembers()
                                             : ns == "R"   ? &RNamespaceMembers()
                                             : ns == "I"   ? &INamespaceMembers()
                                             : ns == "sch" ? &ScheduleMembers()
                                                           : nullptr;
  if (!list) return nullptr;
  for (const NamespaceMember& m : *list) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

}  // namespace wb::lang
