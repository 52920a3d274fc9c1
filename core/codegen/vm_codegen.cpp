#include "codegen/vm_codegen.h"

#include <algorithm>
#include <map>
#include <optional>

#include "codegen/build.h"
#include "relax/expr.h"
#include "relax/op/registry.h"
#include "runtime/vm/vm.h"
#include "relax/type.h"
#include "tir/expr.h"
#include "tir/interpreter.h"
#include "tir/stmt.h"
#include "transform/registry.h"
#include "transform/tir/default_gpu_schedule.h"

namespace wb::codegen {

namespace {

using runtime::vm::Executable;
using runtime::vm::FuncEntry;
using runtime::vm::InstrArg;
using runtime::vm::Instruction;
using runtime::vm::kVoidRegister;
using Value = runtime::vm::Value;
using ir::DataType;
using ir::PrimExpr;
using ir::GetRef;

[[noreturn]] void Fail(const std::string& message, const Span& span) {
  throw DiagnosticError(Diagnostic::Error("VM codegen: " + message, span));
}

std::string FunctionName(const ir::IRModule& module, size_t i) {
  std::string name = module->functions[i]->global_symbol();
  return name.empty() ? module->global_vars[i]->name_hint : name;
}

std::string DTypeText(const DataType& dtype) {
  return runtime::DTypeToString(tir::ToRuntimeDType(dtype));
}

// Compiles one Relax function into the executable.
class FunctionCompiler {
 public:
  FunctionCompiler(const ir::IRModule& module, Executable* exec) : module_(module), exec_(exec) {}

  void Compile(const relax::Function& func, int64_t func_idx) {
    FuncEntry& entry = exec_->func_table[func_idx];
    entry.start_instr = static_cast<int64_t>(exec_->instructions.size());
    entry.num_args = static_cast<int64_t>(func->params.size());
    name_ = entry.name;
    for (const auto& p : func->params) {
      entry.param_names.push_back(p->name_hint);
      vars_[p.get()] = InstrArg::Register(num_regs_++);
    }
    // The heap size is known at the end; the immediate is patched then.
    heap_ = InstrArg::Register(num_regs_++);
    size_t heap_instr = Emit("vm.builtin.alloc_shape_heap", {InstrArg::Immediate(0)}, heap_.value);
    for (size_t i = 0; i < func->params.size(); ++i) {
      const relax::Var& p = func->params[i];
      EmitTypeCheck(vars_[p.get()], relax::GetType(p),
                    name_ + ": parameter '" + p->name_hint + "' (" + relax::TypeToString(relax::GetType(p)) + ")");
    }
    InstrArg result = VisitExpr(func->body);
    Instruction ret;
    ret.op = Instruction::Op::kRet;
    ret.reg = ToRegister(result);
    exec_->instructions.push_back(ret);
    exec_->instructions[heap_instr].args[0].value = static_cast<int64_t>(heap_slots_.size());
    FuncEntry& done = exec_->func_table[func_idx];
    done.end_instr = static_cast<int64_t>(exec_->instructions.size());
    done.register_file_size = num_regs_;
  }

 private:
  size_t Emit(const std::string& callee, std::vector<InstrArg> args, int64_t dst) {
    Instruction in;
    in.op = Instruction::Op::kCall;
    in.func_idx = exec_->GetOrAddPackedFunc(callee);
    in.args = std::move(args);
    in.dst = dst;
    exec_->instructions.push_back(std::move(in));
    return exec_->instructions.size() - 1;
  }
  InstrArg EmitToNew(const std::string& callee, std::vector<InstrArg> args) {
    int64_t r = num_regs_++;
    Emit(callee, std::move(args), r);
    return InstrArg::Register(r);
  }
  InstrArg Constant(Value v) {
    exec_->constants.push_back(std::move(v));
    return InstrArg::ConstIdx(static_cast<int64_t>(exec_->constants.size()) - 1);
  }
  int64_t ToRegister(const InstrArg& a) {
    if (a.kind == InstrArg::Kind::kRegister) return a.value;
    return EmitToNew("vm.builtin.copy", {a}).value;
  }

  // A compound dim as a shape program over heap slots (runtime/vm/vm.h); nullopt when it uses a
  // var not bound yet or an operation the program has no opcode for.
  std::optional<std::vector<int64_t>> ShapeProgram(const PrimExpr& e) {
    std::vector<int64_t> program;
    if (!AppendProgram(e, &program)) return std::nullopt;
    return program;
  }
  bool AppendProgram(const PrimExpr& e, std::vector<int64_t>* out) {
    namespace vm = runtime::vm;
    if (const int64_t* v = tir::AsConstInt(e)) {
      out->insert(out->end(), {vm::kPushImm, *v});
      return true;
    }
    if (auto* var = e.as<tir::VarNode>()) {
      auto it = heap_slots_.find(var);
      if (it == heap_slots_.end()) return false;
      out->insert(out->end(), {vm::kPushHeap, it->second});
      return true;
    }
    if (auto* cast = e.as<tir::CastNode>()) return AppendProgram(cast->value, out);
    auto* bin = e.as<tir::BinaryNode>();
    if (!bin) return false;
    int64_t op = -1;
    if (e.as<tir::AddNode>()) op = vm::kProgAdd;
    if (e.as<tir::SubNode>()) op = vm::kProgSub;
    if (e.as<tir::MulNode>()) op = vm::kProgMul;
    // Shape dims are non-negative, where truncating and flooring division agree.
    if (e.as<tir::FloorDivNode>() || e.as<tir::DivNode>()) op = vm::kProgFloorDiv;
    if (e.as<tir::FloorModNode>() || e.as<tir::ModNode>()) op = vm::kProgFloorMod;
    if (e.as<tir::MinNode>()) op = vm::kProgMin;
    if (e.as<tir::MaxNode>()) op = vm::kProgMax;
    if (e.as<tir::EQNode>()) op = vm::kProgEQ;
    if (e.as<tir::NENode>()) op = vm::kProgNE;
    if (e.as<tir::LTNode>()) op = vm::kProgLT;
    if (e.as<tir::LENode>()) op = vm::kProgLE;
    if (e.as<tir::GTNode>()) op = vm::kProgGT;
    if (e.as<tir::GENode>()) op = vm::kProgGE;
    if (op < 0 || !AppendProgram(bin->a, out) || !AppendProgram(bin->b, out)) return false;
    out->push_back(op);
    return true;
  }
  InstrArg ProgramConstant(std::vector<int64_t> program) { return Constant(Value::Shape(std::move(program))); }

  // The (code, value) pairs of match_shape for declared dims; symbolic vars met first are stored.
  // Compound dims are skipped here and listed in *compound, checked once every var is stored.
  void AppendMatchDims(const std::vector<PrimExpr>& dims, std::vector<InstrArg>* args, std::vector<size_t>* compound) {
    for (size_t i = 0; i < dims.size(); ++i) {
      const PrimExpr& d = dims[i];
      if (const int64_t* v = tir::AsConstInt(d)) {
        args->push_back(InstrArg::Immediate(runtime::vm::kAssertEqualToImm));
        args->push_back(InstrArg::Immediate(*v));
      } else if (auto* var = d.as<tir::VarNode>()) {
        auto it = heap_slots_.find(var);
        if (it == heap_slots_.end()) {
          int64_t slot = static_cast<int64_t>(heap_slots_.size());
          heap_slots_[var] = slot;
          args->push_back(InstrArg::Immediate(runtime::vm::kStoreToHeap));
          args->push_back(InstrArg::Immediate(slot));
        } else {
          args->push_back(InstrArg::Immediate(runtime::vm::kAssertEqualToLoad));
          args->push_back(InstrArg::Immediate(it->second));
        }
      } else {
        args->push_back(InstrArg::Immediate(runtime::vm::kNoOp));
        args->push_back(InstrArg::Immediate(0));
        compound->push_back(i);
      }
    }
  }

  void EmitMatchShape(const InstrArg& value, const std::vector<PrimExpr>& dims, const std::string& ctx) {
    InstrArg ndim = InstrArg::Immediate(static_cast<int64_t>(dims.size()));
    std::vector<InstrArg> args = {value, heap_, ndim};
    std::vector<size_t> compound;
    AppendMatchDims(dims, &args, &compound);
    InstrArg ctx_arg = Constant(Value::String(ctx));
    args.push_back(ctx_arg);
    Emit("vm.builtin.match_shape", std::move(args), kVoidRegister);
    // A compound dim over vars bound by now is checked; one over vars never bound cannot be.
    std::vector<InstrArg> second = {value, heap_, ndim};
    bool any = false;
    for (size_t i = 0; i < dims.size(); ++i) {
      bool is_compound = std::find(compound.begin(), compound.end(), i) != compound.end();
      auto program = is_compound ? ShapeProgram(dims[i]) : std::nullopt;
      if (program) {
        second.push_back(InstrArg::Immediate(runtime::vm::kAssertEqualToProgram));
        second.push_back(ProgramConstant(std::move(*program)));
        any = true;
      } else {
        second.push_back(InstrArg::Immediate(runtime::vm::kNoOp));
        second.push_back(InstrArg::Immediate(0));
      }
    }
    if (!any) return;
    second.push_back(ctx_arg);
    Emit("vm.builtin.match_shape", std::move(second), kVoidRegister);
  }

  // Checks a value against a declared type at run time and binds its symbolic dims.
  void EmitTypeCheck(const InstrArg& value, const relax::Type& type, const std::string& ctx) {
    if (auto* t = type.as<relax::TensorTypeNode>()) {
      Emit("vm.builtin.check_tensor_info",
           {value, InstrArg::Immediate(t->ndim), Constant(Value::String(t->IsUnknownDtype() ? "" : DTypeText(t->dtype))),
            Constant(Value::String(ctx))},
           kVoidRegister);
      if (t->shape) EmitMatchShape(value, *t->shape, ctx);
    } else if (auto* s = type.as<relax::ShapeTypeNode>()) {
      Emit("vm.builtin.check_shape_info", {value, InstrArg::Immediate(s->ndim), Constant(Value::String(ctx))},
           kVoidRegister);
      if (s->values) EmitMatchShape(value, *s->values, ctx);
    } else if (auto* tup = type.as<ir::TupleTypeNode>()) {
      Emit("vm.builtin.check_tuple_info",
           {value, InstrArg::Immediate(static_cast<int64_t>(tup->fields.size())), Constant(Value::String(ctx))},
           kVoidRegister);
      for (size_t i = 0; i < tup->fields.size(); ++i) {
        InstrArg field = EmitToNew("vm.builtin.tuple_getitem", {value, InstrArg::Immediate(static_cast<int64_t>(i))});
        EmitTypeCheck(field, tup->fields[i], ctx + " field " + std::to_string(i));
      }
    }
    // Other types (R.Object, R.Prim, functions) are not checked.
  }

  InstrArg MakeShape(const std::vector<PrimExpr>& dims, const Span& span) {
    std::vector<InstrArg> args = {heap_, InstrArg::Immediate(static_cast<int64_t>(dims.size()))};
    for (const auto& d : dims) {
      if (const int64_t* v = tir::AsConstInt(d)) {
        args.push_back(InstrArg::Immediate(runtime::vm::kUseImm));
        args.push_back(InstrArg::Immediate(*v));
        continue;
      }
      if (auto* var = d.as<tir::VarNode>(); var && heap_slots_.count(var)) {
        args.push_back(InstrArg::Immediate(runtime::vm::kLoadShape));
        args.push_back(InstrArg::Immediate(heap_slots_.at(var)));
        continue;
      }
      auto program = ShapeProgram(d);
      if (!program) {
        Fail("the dim '" + relax::TypeToString(relax::MakeShapeType({d})) +
                 "' uses a symbolic var that no parameter or R.match_cast binds, or an operation "
                 "shapes cannot compute at run time",
             span);
      }
      args.push_back(InstrArg::Immediate(runtime::vm::kEvalProgram));
      args.push_back(ProgramConstant(std::move(*program)));
    }
    return EmitToNew("vm.builtin.make_shape", std::move(args));
  }

  void VisitBinding(const relax::Binding& binding) {
    if (auto* mc = binding.as<relax::MatchCastNode>()) {
      InstrArg value = VisitExpr(mc->value);
      EmitTypeCheck(value, mc->struct_info,
                    name_ + ": R.match_cast of '" + mc->var->name_hint + "' to " + relax::TypeToString(mc->struct_info));
      vars_[mc->var.get()] = value;
      return;
    }
    auto* vb = binding.as<relax::VarBindingNode>();
    vars_[vb->var.get()] = VisitExpr(vb->value);
  }

  InstrArg VisitExpr(const relax::Expr& expr) {
    if (auto* v = expr.as<relax::VarNode>()) {
      auto it = vars_.find(v);
      if (it == vars_.end()) Fail("variable '" + v->name_hint + "' is used before it is bound", v->span);
      return it->second;
    }
    if (auto* seq = expr.as<relax::SeqExprNode>()) {
      for (const auto& block : seq->blocks) {
        for (const auto& b : block->bindings) VisitBinding(b);
      }
      return VisitExpr(seq->body);
    }
    if (auto* c = expr.as<relax::ConstantNode>()) {
      runtime::NDArray a = runtime::NDArray::Empty(c->shape, tir::ToRuntimeDType(c->dtype));
      std::string why;
      if (!a.CopyFromBytes(c->data.data(), c->data.size(), &why)) Fail("constant: " + why, c->span);
      return Constant(Value::Tensor(a));
    }
    if (auto* s = expr.as<relax::ShapeExprNode>()) return MakeShape(s->values, s->span);
    if (auto* p = expr.as<relax::PrimValueNode>()) {
      if (auto* i = p->value.as<tir::IntImmNode>()) return InstrArg::Immediate(i->value);
      if (auto* f = p->value.as<tir::FloatImmNode>()) return Constant(Value::Float(f->value));
      auto program = ShapeProgram(p->value);
      if (!program) Fail("R.prim_value uses a symbolic var that no parameter or R.match_cast binds", p->span);
      return EmitToNew("vm.builtin.eval_prim", {heap_, ProgramConstant(std::move(*program))});
    }
    if (auto* s = expr.as<relax::StringImmNode>()) return Constant(Value::String(s->value));
    if (auto* d = expr.as<relax::DataTypeImmNode>()) return Constant(Value::String(DTypeText(d->value)));
    if (auto* t = expr.as<relax::TupleNode>()) {
      std::vector<InstrArg> fields;
      for (const auto& f : t->fields) fields.push_back(VisitExpr(f));
      return EmitToNew("vm.builtin.tuple", std::move(fields));
    }
    if (auto* g = expr.as<relax::TupleGetItemNode>()) {
      InstrArg tuple = VisitExpr(g->tuple);
      return EmitToNew("vm.builtin.tuple_getitem", {tuple, InstrArg::Immediate(g->index)});
    }
    if (auto* i = expr.as<relax::IfNode>()) return VisitIf(i);
    if (auto* c = expr.as<relax::CallNode>()) return VisitCall(c);
    Fail("cannot compile a " + std::string(expr->type_key()) + " expression", {});
  }

  InstrArg VisitIf(const relax::IfNode* node) {
    InstrArg cond = EmitToNew("vm.builtin.read_if_cond", {VisitExpr(node->cond)});
    int64_t result = num_regs_++;
    size_t if_pc = exec_->instructions.size();
    Instruction branch;
    branch.op = Instruction::Op::kIf;
    branch.reg = cond.value;
    exec_->instructions.push_back(branch);
    Emit("vm.builtin.copy", {VisitExpr(node->true_branch)}, result);
    size_t goto_pc = exec_->instructions.size();
    Instruction jump;
    jump.op = Instruction::Op::kGoto;
    exec_->instructions.push_back(jump);
    exec_->instructions[if_pc].offset = static_cast<int64_t>(exec_->instructions.size() - if_pc);
    Emit("vm.builtin.copy", {VisitExpr(node->false_branch)}, result);
    exec_->instructions[goto_pc].offset = static_cast<int64_t>(exec_->instructions.size() - goto_pc);
    return InstrArg::Register(result);
  }

  InstrArg VisitCall(const relax::CallNode* call) {
    if (auto* op = call->op.as<ir::OpNode>()) {
      if (op->name == "relax.builtin.alloc_tensor") {
        InstrArg shape = VisitExpr(call->args.at(0));
        InstrArg dtype = VisitExpr(call->args.at(1));
        return EmitToNew("vm.builtin.alloc_tensor", {shape, dtype});
      }
      // Memory planning's explicit storages: (size, device index, scope, dtype) and
      // (storage, offset, shape, dtype); the device and scope are the CPU's global memory here.
      if (op->name == "relax.memory.alloc_storage") {
        InstrArg size = VisitExpr(call->args.at(0));
        InstrArg dtype = VisitExpr(call->args.at(3));
        return EmitToNew("vm.builtin.alloc_storage", {size, dtype});
      }
      if (op->name == "relax.memory.alloc_tensor") {
        std::vector<InstrArg> args;
        for (const auto& a : call->args) args.push_back(VisitExpr(a));
        return EmitToNew("vm.builtin.alloc_tensor_from_storage", std::move(args));
      }
      // A kill drops the register's reference, so the memory goes once nothing else holds it.
      if (op->name == "relax.memory.kill_tensor" || op->name == "relax.memory.kill_storage") {
        InstrArg target = VisitExpr(call->args.at(0));
        if (target.kind == InstrArg::Kind::kRegister) Emit("vm.builtin.null_value", {}, target.value);
        return InstrArg::Immediate(0);
      }
      if (op->name == "relax.shape_of") return EmitToNew("vm.builtin.shape_of", {VisitExpr(call->args.at(0))});
      // The runtime's own functions (TVM's FCallPacked): the same arguments, in order.
      if (const relax::OpInfo* info = relax::InfoOf(ir::GetRef(op)); info && !info->call_packed.empty()) {
        std::vector<InstrArg> args;
        for (const auto& a : call->args) args.push_back(VisitExpr(a));
        return EmitToNew(info->call_packed, std::move(args));
      }
      // A packed function the caller declared pure: called by its name with the other arguments.
      if (op->name == "relax.call_pure_packed") {
        auto* ext = call->args.empty() ? nullptr : call->args[0].as<relax::ExternFuncNode>();
        if (!ext) Fail("R.call_pure_packed: the callee must be a packed function by name", call->span);
        std::vector<InstrArg> args;
        for (size_t i = 1; i < call->args.size(); ++i) args.push_back(VisitExpr(call->args[i]));
        return EmitToNew(ext->global_symbol, std::move(args));
      }
      Fail("op '" + op->name + "' is not lowered for the VM (run LegalizeOps and CallTIRRewrite first)", call->span);
    }
    std::vector<InstrArg> args;
    for (const auto& a : call->args) args.push_back(VisitExpr(a));
    if (auto* gv = call->op.as<ir::GlobalVarNode>()) {
      ir::BaseFunc f = module_->Lookup(GetRef(gv));
      if (!f.defined()) Fail("call of '" + gv->name_hint + "', which the module does not define", call->span);
      std::string name = f->global_symbol().empty() ? gv->name_hint : f->global_symbol();
      if (f.as<tir::PrimFuncNode>()) {
        // Destination-passing style: the kernel writes into its output arguments and returns
        // nothing; the binding's var is never read.
        Emit(name, std::move(args), kVoidRegister);
        return InstrArg::Immediate(0);
      }
      int64_t idx = exec_->FindFunction(name);
      if (idx < 0) Fail("call of '" + name + "', which is not a Relax function", call->span);
      Instruction in;
      in.op = Instruction::Op::kCall;
      in.func_idx = idx;
      in.args = std::move(args);
      in.dst = num_regs_++;
      exec_->instructions.push_back(std::move(in));
      return InstrArg::Register(exec_->instructions.back().dst);
    }
    if (auto* ext = call->op.as<relax::ExternFuncNode>()) return EmitToNew(ext->global_symbol, std::move(args));
    Fail("calls of a function value are not supported by the VM codegen", call->span);
  }

  ir::IRModule module_;
  Executable* exec_;
  std::string name_;
  int64_t num_regs_ = 0;
  InstrArg heap_;
  std::map<const ir::Object*, InstrArg> vars_;
  std::map<const tir::VarNode*, int64_t> heap_slots_;
};

}  // namespace

std::shared_ptr<Executable> VMCodeGen(const ir::IRModule& lowered) {
  auto exec = std::make_shared<Executable>();
  // Every VM function is in the table before any body is compiled, so calls may go forward.
  std::vector<std::pair<relax::Function, int64_t>> funcs;
  for (size_t i = 0; i < lowered->size(); ++i) {
    auto f = lowered->functions[i].as_ref<relax::FunctionNode>();
    if (!f.defined()) continue;
    FuncEntry entry;
    entry.kind = FuncEntry::Kind::kVMFunc;
    entry.name = FunctionName(lowered, i);
    exec->func_table.push_back(entry);
    funcs.emplace_back(f, static_cast<int64_t>(exec->func_table.size()) - 1);
  }
  for (const auto& [f, idx] : funcs) FunctionCompiler(lowered, exec.get()).Compile(f, idx);
  return exec;
}

std::string VMRelaxPipeline(const VMBuildOptions& options) {
  if (!options.relax_pipeline.empty()) return options.relax_pipeline;
  std::string rest = "ToNonDataflow, RemovePurityChecking, CallTIRRewrite, StaticPlanBlockMemory";
  if (options.fuse) {
    return "LegalizeOps, AnnotateTIROpPattern, FuseOps, FuseTIR, " +
           std::string(options.default_schedule ? "ApplyDefaultSchedule, " : "") + rest;
  }
  const std::string* named = transform::PassRegistry::Global().FindPipeline("default_build_pipeline");
  return named ? *named : "LegalizeOps, " + rest;
}

ir::PassContext VMPassContext(const Target& target, const VMBuildOptions& options) {
  ir::PassContext context = ir::PassContext::Current();
  // The build's target, unless the user's own config (--pass-config) names one: scheduling
  // for another CPU than the one built for is a what-if the user may ask for.
  const auto* set = dynamic_cast<const ir::StringObj*>(
      context.GetConfig("ApplyDefaultSchedule", "target"));
  if (set == nullptr || set->value.empty()) {
    ir::AttrMap dlight;
    if (auto it = context.config.find("ApplyDefaultSchedule"); it != context.config.end()) {
      if (const auto* map = dynamic_cast<const ir::MapObj*>(it->second.get())) dlight = map->items;
    }
    dlight["target"] = ir::MakeString(target.str());
    context.config["ApplyDefaultSchedule"] = ir::MakeMap(std::move(dlight));
  }
  if (!options.default_schedule) context.disabled_passes.push_back("ApplyDefaultSchedule");
  return context;
}

namespace {

// Keeps the module ApplyDefaultSchedule is about to read: the kernels as legalized and fused.
class BeforeDefaultSchedule : public ir::PassInstrument {
 public:
  explicit BeforeDefaultSchedule(ir::IRModule* out) : out_(out) {}
  std::string name() const override { return "BeforeDefaultSchedule"; }
  void RunBeforePass(const ir::IRModule& module, const ir::PassInfo& info) override {
    if (info.name == "ApplyDefaultSchedule") *out_ = module;
  }

 private:
  ir::IRModule* out_;
};

}  // namespace

VMBuildResult BuildVM(const ir::IRModule& module, const Target& target, const VMBuildOptions& options) {
  VMBuildResult result;
  try {
    auto pipeline = transform::BuildPipeline(VMRelaxPipeline(options), result.diagnostics);
    if (!pipeline) return result;
    ir::PassContext context = VMPassContext(target, options);
    context.instruments.push_back(std::make_shared<BeforeDefaultSchedule>(&result.unscheduled));
    ir::IRModule lowered = pipeline->Run(module, context);
    result.lowered = lowered;
    // The kernels alone go to the TIR build.
    std::vector<ir::GlobalVar> vars;
    std::vector<ir::BaseFunc> prims;
    for (size_t i = 0; i < lowered->size(); ++i) {
      if (lowered->functions[i].as<tir::PrimFuncNode>()) {
        vars.push_back(lowered->global_vars[i]);
        prims.push_back(lowered->functions[i]);
      }
    }
    if (!prims.empty()) {
      ir::IRModule kernels = ir::MakeIRModule(vars, prims);
      // GPU kernels must be bound to threads: what the default schedules left unbound gets the
      // fallback binding (each leaf block's spatial loops over blockIdx.x and threadIdx.x).
      if (target.is_cuda()) kernels = transform::DefaultGPUSchedule()(kernels);
      BuildOptions kernel_options;
      kernel_options.default_schedule = options.default_schedule;
      kernel_options.debug_lines = options.debug_lines;
      BuildResult built = Build(kernels, target, kernel_options);
      if (!built.ok()) {
        for (const auto& d : built.diagnostics) result.diagnostics.Add(d);
        return result;
      }
      result.kernels = built.module;
    }
    result.exec = VMCodeGen(lowered);
  } catch (const DiagnosticError& e) {
    result.diagnostics.Add(e.diagnostic());
    result.exec = nullptr;
  }
  return result;
}

}  // namespace wb::codegen
