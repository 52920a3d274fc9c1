#include "transform/tir/lower_thread_allreduce.h"

#include <unordered_map>

#include "tir/builtin.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/substitute.h"
#include "tir/transform.h"
#include "transform/registry.h"

namespace wb::transform {

namespace {

using namespace tir;

constexpr int64_t kWarp = 32;

struct Launch {
  Var var;
  std::string tag;
  PrimExpr extent;
};

class AllreduceLowerer : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitStmt_;
  explicit AllreduceLowerer(const Stmt& body) {
    PostOrderVisit(body, [&](const Object* n) {
      if (auto* a = dynamic_cast<const AllocBufferNode*>(n)) buffers_[a->buffer->data.get()] = a->buffer;
      if (auto* b = dynamic_cast<const SBlockNode*>(n)) {
        for (const auto& buf : b->alloc_buffers) buffers_[buf->data.get()] = buf;
      }
    });
  }

  Stmt VisitStmt_(const AttrStmtNode* op) override {
    auto* iv = op->node.as<IterVarNode>();
    if (iv && op->attr_key == "thread_extent") {
      launches_.push_back({iv->var, iv->thread_tag, op->value});
      Stmt s = StmtExprMutator::VisitStmt_(op);
      launches_.pop_back();
      return s;
    }
    if (op->attr_key == "reduce_scope") {
      auto* reducer = op->node.as<CommReducerNode>();
      auto* eval = op->body.as<EvaluateNode>();
      auto* call = eval ? eval->value.as<CallNode>() : nullptr;
      if (reducer && call && IsAllreduce(call)) return Lower(GetRef(reducer), call, op->span);
    }
    return StmtExprMutator::VisitStmt_(op);
  }

  Stmt VisitStmt_(const EvaluateNode* op) override {
    auto* call = op->value.as<CallNode>();
    if (call && IsAllreduce(call)) {
      throw ir::PassError(Diagnostic::Error(
          "T.tvm_thread_allreduce outside a \"reduce_scope\" attribute: its reducer is unknown",
          op->span));
    }
    return StmtExprMutator::VisitStmt_(op);
  }

 private:
  static bool IsAllreduce(const CallNode* call) {
    auto* o = call->op.as<ir::OpNode>();
    return o && o->name == "tirx.tvm_thread_allreduce";
  }

  [[noreturn]] static void Unsupported(const std::string& what, const Span& span) {
    throw ir::PassError(Diagnostic::Error("LowerThreadAllreduce: " + what, span));
  }

  const Launch* Find(const std::string& tag) const {
    for (auto it = launches_.rbegin(); it != launches_.rend(); ++it) {
      if (it->tag == tag) return &*it;
    }
    return nullptr;
  }

  Stmt Lower(const CommReducer& reducer, const CallNode* call, const Span& span) {
    const int64_t* size = call->args.empty() ? nullptr : AsConstInt(call->args[0]);
    if (!size || *size != 1) {
      Unsupported("reductions of several values at once (argmax-style) are not supported", span);
    }
    if (call->args.size() != 5) {
      Unsupported("expected (1, value, cond, result.data, reduce var) over one thread axis", span);
    }
    PrimExpr value = call->args[1], cond = call->args[2];
    auto* res_var = call->args[3].as<VarNode>();
    auto* reduce_var = call->args[4].as<VarNode>();
    auto res_it = res_var ? buffers_.find(res_var) : buffers_.end();
    if (res_it == buffers_.end()) Unsupported("the result must be the data of an allocated buffer", span);
    Buffer res = res_it->second;
    const Launch* tx = Find("threadIdx.x");
    if (!reduce_var || !tx || tx->var.get() != reduce_var) {
      Unsupported("only reductions over threadIdx.x are supported", span);
    }
    const int64_t* r = AsConstInt(tx->extent);
    if (!r || *r <= 0 || *r > 1024) Unsupported("threadIdx.x needs a constant extent up to 1024", span);
    const int64_t R = *r;
    // The group: the other thread axes, each an independent reduction.
    PrimExpr group = MakeIntImm(DataType::Int(32), 0);
    int64_t groups = 1;
    for (const char* tag : {"threadIdx.z", "threadIdx.y"}) {
      if (const Launch* l = Find(tag)) {
        const int64_t* e = AsConstInt(l->extent);
        if (!e) Unsupported(std::string(tag) + " needs a constant extent", span);
        group = add(mul(group, make_const(DataType::Int(32), *e)), l->var);
        groups *= *e;
      }
    }
    const DataType t = value->dtype;
    const PrimExpr identity = reducer->identity_element[0];
    auto combine = [&](PrimExpr a, PrimExpr b) {
      VarMap vmap{{reducer->lhs[0].get(), a}, {reducer->rhs[0].get(), b}};
      return Substitute(reducer->result[0], vmap);
    };
    auto res0 = [&] { return MakeBufferLoad(res, {MakeIntImm(DataType::Int(32), 0)}); };
    auto set_res = [&](PrimExpr v) {
      return MakeBufferStore(res, std::move(v), {MakeIntImm(DataType::Int(32), 0)}, {}, span);
    };
    auto i32 = [](int64_t v) { return MakeIntImm(DataType::Int(32), v); };
    auto sync = [&] {
      return MakeEvaluate(MakeCall(DataType::Int(32), GetOp("tirx.tvm_storage_sync"),
                                   {MakeStringImm("shared")}, span));
    };
    PrimExpr x = tx->var;
    std::vector<Stmt> seq;
    seq.push_back(set_res(MakeSelect(cond, value, identity)));
    const bool pow2 = (R & (R - 1)) == 0;
    if ((pow2 && R <= kWarp) || R % kWarp == 0) {
      Var mask = MakeVar("mask", DataType::UInt(32));
      seq.push_back(MakeBind(mask, MakeCall(DataType::UInt(32), GetOp("tirx.tvm_warp_activemask"), {})));
      const int64_t width = std::min(R, kWarp);
      auto warp_reduce = [&](int64_t w) {
        for (int64_t off = w / 2; off >= 1; off /= 2) {
          PrimExpr other = MakeCall(t, GetOp("tirx.tvm_warp_shuffle_down"),
                                    {mask, res0(), i32(off), i32(w), i32(kWarp)});
          seq.push_back(set_res(combine(res0(), other)));
        }
      };
      warp_reduce(width);
      if (R > kWarp) {
        // The warps' partial values meet in shared memory; every warp then reduces them (its
        // lane i takes warp i's value) and so holds the result itself.
        const int64_t warps = R / kWarp;
        Buffer partial = MakeBuffer("red_buf_shared", {i32(groups * warps)}, t,
                                    BufferOptions{.scope = "shared"});
        PrimExpr base = mul(group, i32(warps));
        seq.push_back(MakeAllocBuffer(partial));
        seq.push_back(MakeIfThenElse(equal(floormod(x, i32(kWarp)), i32(0)),
                                     MakeBufferStore(partial, res0(), {add(base, floordiv(x, i32(kWarp)))})));
        seq.push_back(sync());
        PrimExpr lane = floormod(x, i32(kWarp));
        seq.push_back(set_res(MakeCall(t, GetOp("tirx.if_then_else"),
                                       {less(lane, i32(warps)),
                                        MakeBufferLoad(partial, {add(base, lane)}), identity})));
        warp_reduce(kWarp);
      }
      seq.push_back(set_res(MakeCall(t, GetOp("tirx.tvm_warp_shuffle"),
                                     {mask, res0(), i32(0), i32(width), i32(kWarp)})));
      if (R > kWarp) seq.push_back(sync());  // before the partial values are overwritten
    } else {
      Buffer values = MakeBuffer("red_buf_shared", {i32(groups * R)}, t,
                                 BufferOptions{.scope = "shared"});
      PrimExpr base = mul(group, i32(R));
      seq.push_back(MakeAllocBuffer(values));
      seq.push_back(MakeBufferStore(values, res0(), {add(base, x)}));
      seq.push_back(sync());
      seq.push_back(set_res(identity));
      Var i = MakeVar("i", DataType::Int(32));
      seq.push_back(MakeFor(i, i32(0), i32(R), ForKind::kSerial,
                            set_res(combine(res0(), MakeBufferLoad(values, {add(base, i)})))));
      seq.push_back(sync());
    }
    return MakeSeq(std::move(seq), span);
  }

  std::vector<Launch> launches_;
  std::unordered_map<const VarNode*, Buffer> buffers_;
};

}  // namespace

ir::Pass LowerThreadAllreduce() {
  return CreateBodyRewritePass([](const Stmt& body) { return AllreduceLowerer(body)(body); }, 0,
                               "LowerThreadAllreduce");
}

static PassRegistrar registrar({"LowerThreadAllreduce",
                                "lowers tvm_thread_allreduce to warp shuffles and shared memory "
                                "with barriers",
                                {},
                                [](const PassArgs&) { return LowerThreadAllreduce(); }});

}  // namespace wb::transform
