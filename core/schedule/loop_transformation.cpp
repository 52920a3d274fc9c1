// split and fuse (shared/SCHEDULE.md §2.2): checks in TVM's order, fresh serial loops named as
// TVM names them, block bindings substituted and then IterMap-simplified.
#include <algorithm>
#include <unordered_set>

#include "arith/analyzer.h"
#include "arith/iter_affine_map.h"
#include "schedule/binding_simplify.h"
#include "schedule/ir_path.h"
#include "schedule/schedule.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace wb::schedule {

using namespace tir;

namespace {

std::string LoopName(const For& loop) { return "`" + loop->loop_var->name_hint + "`"; }

bool HasAnnotationOrThreadBinding(const For& loop) {
  return !loop->annotations.empty() || loop->thread_binding.defined() ||
         loop->kind == ForKind::kThreadBinding;
}

// ANDs `pred` onto every SBlockRealize reached from `stmt` without crossing another realize.
class PredicateAdder : public StmtMutator {
 public:
  explicit PredicateAdder(PrimExpr pred) : pred_(std::move(pred)) {}
  using StmtMutator::VisitStmt_;
  Stmt VisitStmt_(const SBlockRealizeNode* op) override {
    return MakeSBlockRealize(op->iter_values, logical_and(op->predicate, pred_), op->block,
                             op->span);
  }

 private:
  PrimExpr pred_;
};

}  // namespace

std::vector<LoopRV> Schedule::Split(const LoopRV& loop_rv,
                                    const std::vector<std::optional<int64_t>>& factors,
                                    bool preserve_unit_iters, bool disable_predication) {
  For loop = Get(loop_rv);
  const char* prim = "split";
  DataType dtype = loop->loop_var->dtype;
  arith::Analyzer analyzer;

  int infer_index = -1;
  int64_t known_product = 1;
  for (size_t i = 0; i < factors.size(); ++i) {
    if (!factors[i]) {
      if (infer_index != -1) {
        throw ScheduleError(prim, "only one factor can be specified as -1 or none", loop->span);
      }
      infer_index = static_cast<int>(i);
      continue;
    }
    if (*factors[i] <= 0) {
      throw ScheduleError(prim,
                          "The schedule primitive split does not accept non-positive "
                          "factors, but the factor at position " +
                              std::to_string(i) + " is " + std::to_string(*factors[i]), loop->span);
    }
    known_product *= *factors[i];
  }
  if (factors.empty()) throw ScheduleError(prim, "split needs at least one factor", loop->span);

  std::vector<PrimExpr> f;
  for (const auto& v : factors) f.push_back(v ? make_const(dtype, *v) : PrimExpr());
  PrimExpr product = make_const(dtype, known_product);
  if (infer_index == -1) {
    if (!analyzer.CanProve(greater_equal(product, loop->extent))) {
      throw ScheduleError(prim,
                          "The product of factors is not larger than or equal to the "
                          "extent of loop " +
                              LoopName(loop), loop->span);
    }
  } else {
    f[infer_index] = analyzer.Simplify(
        floordiv(sub(add(loop->extent, product), make_const(dtype, int64_t(1))), product));
  }
  if (HasAnnotationOrThreadBinding(loop)) {
    throw ScheduleError(prim, "The primitive can't be applied because the loop " + LoopName(loop) +
                                  " has annotation or thread binding", loop->span);
  }
  if (!analyzer.CanProve(equal(loop->min, make_const(loop->min->dtype, int64_t(0))))) {
    throw ScheduleError(
        prim, "The loop " + LoopName(loop) + " does not start with 0, which is not supported", loop->span);
  }

  std::vector<Var> vars;
  PrimExpr subst;
  for (size_t i = 0; i < f.size(); ++i) {
    Var v = MakeVar(loop->loop_var->name_hint + "_" + std::to_string(i), dtype);
    analyzer.Bind(v, ir::MakeRange(make_const(dtype, int64_t(0)), f[i]));
    vars.push_back(v);
    subst = i == 0 ? PrimExpr(v) : add(mul(subst, f[i]), v);
  }
  Stmt body = Substitute(loop->body, VarMap{{loop->loop_var.get(), subst}});
  if (!disable_predication && !analyzer.CanProve(less(subst, loop->extent))) {
    body = PredicateAdder(less(subst, loop->extent))(body);
  }
  for (size_t i = f.size(); i-- > 0;) {
    body = MakeFor(vars[i], make_const(dtype, int64_t(0)), f[i], ForKind::kSerial, body);
  }
  std::vector<const StmtNode*> path = PathTo(Func()->body, loop.get());
  body = SimplifyBindings(body, OuterLoopRanges(path), preserve_unit_iters);
  Replace(loop.get(), body);

  std::vector<LoopRV> out;
  Instruction inst{"split", {{"loop", TraceValue::Loop(loop_rv.id)}}, {}, true};
  std::vector<TraceValue> factor_values;
  for (const auto& v : factors) {
    factor_values.push_back(v ? TraceValue::Int(*v) : TraceValue::None());
  }
  inst.args.push_back({"factors", TraceValue::List(factor_values)});
  inst.args.push_back({"preserve_unit_iters", TraceValue::Bool(preserve_unit_iters)});
  inst.args.push_back({"disable_predication", TraceValue::Bool(disable_predication)});
  for (const Var& v : vars) {
    out.push_back(NewLoopRV(v));
    inst.outputs.push_back(TraceValue::Loop(out.back().id));
  }
  trace_.Append(std::move(inst));
  return out;
}

LoopRV Schedule::Fuse(const std::vector<LoopRV>& loop_rvs, bool preserve_unit_iters) {
  const char* prim = "fuse";
  if (loop_rvs.empty()) throw std::invalid_argument("fuse expects at least one loop");
  std::vector<For> loops;
  for (const LoopRV& rv : loop_rvs) loops.push_back(Get(rv));
  arith::Analyzer analyzer;
  std::unordered_set<const VarNode*> outer_vars;
  for (size_t i = 0; i < loops.size(); ++i) {
    const For& loop = loops[i];
    if (HasAnnotationOrThreadBinding(loop)) {
      throw ScheduleError(prim, "The primitive can't be applied because the loop " +
                                    LoopName(loop) + " has annotation or thread binding", loop->span);
    }
    if (i > 0) {
      const For& outer = loops[i - 1];
      std::vector<const StmtNode*> path = PathTo(outer->body, loop.get());
      // The sref parent of `loop` is its nearest enclosing For or SBlock.
      bool parent_is_outer = !path.empty();
      for (size_t k = 0; k + 1 < path.size() && parent_is_outer; ++k) {
        if (ir::IsInstance<ForNode>(path[k]) || ir::IsInstance<SBlockNode>(path[k])) {
          parent_is_outer = false;
        }
      }
      if (!parent_is_outer) {
        throw ScheduleError(prim, "The loop " + LoopName(outer) +
                                      " is not the parent of the inner loop " + LoopName(loop), loop->span);
      }
      if (outer->body.get() != loop.get()) {
        throw ScheduleError(prim, "The inner loop " + LoopName(loop) +
                                      " is not the only child of outer loop " + LoopName(outer), loop->span);
      }
    }
    if (!analyzer.CanProve(equal(loop->min, make_const(loop->min->dtype, int64_t(0))))) {
      throw ScheduleError(
          prim, "The loop " + LoopName(loop) + " does not start with 0, which is not supported", loop->span);
    }
    bool dependent = false;
    PostOrderVisit(loop->extent, [&](const ir::Object* n) {
      if (ir::IsInstance<VarNode>(n) && outer_vars.count(static_cast<const VarNode*>(n))) {
        dependent = true;
      }
    });
    if (dependent) {
      throw ScheduleError(prim,
                          "A loop " + LoopName(loop) + "'s `extent` is dependent on another loop", loop->span);
    }
    outer_vars.insert(loop->loop_var.get());
  }

  int bits = 0;
  std::string name;
  for (const For& l : loops) {
    bits = std::max(bits, l->loop_var->dtype.bits());
    name += l->loop_var->name_hint + "_";
  }
  DataType dtype = DataType::Int(bits);
  Var fused = MakeVar(name + "fused", dtype);
  VarMap vmap;
  PrimExpr lower = make_const(dtype, int64_t(1));
  for (size_t i = loops.size(); i-- > 0;) {
    const For& l = loops[i];
    PrimExpr ext = cast(dtype, l->extent);
    PrimExpr value;
    PrimExpr simplified_ext = analyzer.Simplify(ext);
    const int64_t* const_ext = AsConstInt(simplified_ext);
    if (const_ext && *const_ext == 1) {
      value = make_const(dtype, int64_t(0));
    } else if (i == 0) {
      value = floordiv(fused, lower);
    } else {
      value = floordiv(floormod(fused, analyzer.Simplify(mul(ext, lower))), lower);
    }
    vmap[l->loop_var.get()] = cast(l->loop_var->dtype, value);
    lower = analyzer.Simplify(mul(lower, ext));
  }
  Stmt body = Substitute(loops.back()->body, vmap);
  body = MakeFor(fused, make_const(dtype, int64_t(0)), lower, ForKind::kSerial, body);
  std::vector<const StmtNode*> path = PathTo(Func()->body, loops.front().get());
  body = SimplifyBindings(body, OuterLoopRanges(path), preserve_unit_iters);
  Replace(loops.front().get(), body);

  LoopRV out = NewLoopRV(fused);
  Instruction inst{"fuse", {}, {TraceValue::Loop(out.id)}, false};
  for (const LoopRV& rv : loop_rvs) inst.args.push_back({"", TraceValue::Loop(rv.id)});
  inst.args.push_back({"preserve_unit_iters", TraceValue::Bool(preserve_unit_iters)});
  trace_.Append(std::move(inst));
  return out;
}

}  // namespace wb::schedule
