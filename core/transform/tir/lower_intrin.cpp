#include "transform/tir/lower_intrin.h"

#include "arith/analyzer.h"
#include "tir/builtin.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/transform.h"
#include "transform/registry.h"

namespace wb::transform {

namespace {

using namespace tir;

// The constant every lane of `e` holds, or null.
const int64_t* LaneConstant(const PrimExpr& e) {
  if (auto* b = e.as<BroadcastNode>()) return AsConstInt(b->value);
  return AsConstInt(e);
}

int Log2IfPowerOfTwo(int64_t c) {
  if (c <= 0 || (c & (c - 1)) != 0) return -1;
  int k = 0;
  while ((int64_t{1} << k) != c) ++k;
  return k;
}

class IntrinLowerer : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;

  Stmt VisitStmt_(const ForNode* op) override {
    if (!op->step.defined() || IsConstInt(op->step, 1)) {
      analyzer_.Bind(op->loop_var, ir::MakeRange(op->min, op->extent), /*allow_override=*/true);
    }
    return StmtExprMutator::VisitStmt_(op);
  }

  PrimExpr VisitExpr_(const FloorDivNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    DataType t = op->dtype;
    if (t.is_floating_point()) return Floor(MakeBinary(ir::TypeIndex::kDiv, a, b), t);
    const int64_t* c = LaneConstant(b);
    if (c && *c > 0) {
      if (NonNegative(a)) return MakeBinary(ir::TypeIndex::kDiv, a, b);
      if (int k = Log2IfPowerOfTwo(*c); k >= 0) {
        return MakeCall(t, GetOp("tirx.shift_right"), {a, make_const(t, int64_t(k))});
      }
    }
    PrimExpr q = MakeBinary(ir::TypeIndex::kDiv, a, b);
    PrimExpr r = MakeBinary(ir::TypeIndex::kMod, a, b);
    return MakeSelect(NeedsCorrection(r, b, c), sub(q, make_const(t, int64_t(1))), q);
  }

  PrimExpr VisitExpr_(const FloorModNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    DataType t = op->dtype;
    if (t.is_floating_point()) {
      PrimExpr quotient = Floor(MakeBinary(ir::TypeIndex::kDiv, a, b), t);
      return sub(a, mul(quotient, b));
    }
    const int64_t* c = LaneConstant(b);
    if (c && *c > 0) {
      if (NonNegative(a)) return MakeBinary(ir::TypeIndex::kMod, a, b);
      if (Log2IfPowerOfTwo(*c) >= 0) {
        return MakeCall(t, GetOp("tirx.bitwise_and"), {a, make_const(t, *c - 1)});
      }
    }
    PrimExpr r = MakeBinary(ir::TypeIndex::kMod, a, b);
    return MakeSelect(NeedsCorrection(r, b, c), add(r, b), r);
  }

 private:
  // Every lane of `e` is >= 0: a scalar by range analysis, a Ramp by its base and stride, a
  // Broadcast by its value; other vectors are not proved.
  bool NonNegative(const PrimExpr& e) {
    if (e->dtype.lanes() == 1) return analyzer_.CanProveGreaterEqual(e, 0);
    if (auto* r = e.as<RampNode>()) return NonNegative(r->base) && NonNegative(r->stride);
    if (auto* b = e.as<BroadcastNode>()) return NonNegative(b->value);
    return false;
  }

  static PrimExpr Floor(const PrimExpr& x, DataType t) {
    return MakeCall(t, GetOp("tirx.floor"), {x});
  }

  // Truncating division rounded the wrong way: the remainder is non-zero and its sign differs
  // from the divisor's.
  static PrimExpr NeedsCorrection(const PrimExpr& r, const PrimExpr& b, const int64_t* c) {
    PrimExpr zero = make_const(r->dtype, int64_t(0));
    if (c && *c > 0) return less(r, zero);
    if (c && *c < 0) return greater(r, zero);
    return logical_or(logical_and(less(r, zero), greater(b, zero)),
                      logical_and(greater(r, zero), less(b, zero)));
  }

  arith::Analyzer analyzer_;
};

}  // namespace

ir::Pass LowerIntrin() {
  return tir::CreateBodyRewritePass([](const Stmt& body) { return IntrinLowerer()(body); }, 0,
                                   "LowerIntrin");
}

static PassRegistrar registrar({"LowerIntrin",
                                "lowers floordiv/floormod to the truncating forms code generators emit",
                                {},
                                [](const PassArgs&) { return LowerIntrin(); }});

}  // namespace wb::transform
