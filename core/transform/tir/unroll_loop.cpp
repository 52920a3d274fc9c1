#include "transform/tir/unroll_loop.h"

#include <limits>
#include <unordered_set>

#include "arith/analyzer.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/substitute.h"
#include "tir/transform.h"
#include "transform/pass_control.h"
#include "transform/registry.h"

namespace wb::transform {

namespace {

using namespace tir;

struct UnrollConfig {
  int64_t auto_max_step = 0;
  int64_t auto_max_depth = 8;
  int64_t auto_max_extent = 0;
  bool explicit_unroll = true;
  bool unroll_local_access = false;
};

// Gives every variable a copy of a statement defines (loops, binds, lets) a fresh Var, so the
// copies of an unrolled body do not define the same variable twice.
class DefinitionRenewer : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;

  PrimExpr VisitExpr_(const VarNode* op) override {
    auto it = vmap_.find(op);
    return it == vmap_.end() ? PrimExpr(GetRef(op)) : it->second;
  }
  Stmt VisitStmt_(const ForNode* op) override {
    Var v = Renew(op->loop_var);
    Stmt s = StmtExprMutator::VisitStmt_(op);
    For loop = Downcast<ForNode>(s);
    loop.CopyOnWrite()->loop_var = v;
    return loop;
  }
  Stmt VisitStmt_(const BindNode* op) override {
    PrimExpr value = VisitExpr(op->value);
    return MakeBind(Renew(op->var), value, op->span);
  }
  PrimExpr VisitExpr_(const LetNode* op) override {
    PrimExpr value = VisitExpr(op->value);
    Var v = Renew(op->var);
    return MakeLet(v, value, VisitExpr(op->body), op->span);
  }

  VarMap vmap_;

 private:
  Var Renew(const Var& var) {
    Var fresh = var->type_annotation.defined() ? MakeVar(var->name_hint, var->type_annotation)
                                               : MakeVar(var->name_hint, var->dtype);
    vmap_[var.get()] = fresh;
    return fresh;
  }
};

class LoopUnroller : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;

  explicit LoopUnroller(UnrollConfig config) : config_(config) {}

  Stmt VisitStmt_(const AttrStmtNode* op) override {
    if (op->attr_key == "pragma_auto_unroll_max_step" && AsConstInt(op->value)) {
      int64_t saved = config_.auto_max_step;
      config_.auto_max_step = *AsConstInt(op->value);
      Stmt body = VisitStmt(op->body);
      config_.auto_max_step = saved;
      return body;
    }
    if (op->attr_key == "pragma_unroll_explicit" && AsConstInt(op->value)) {
      bool saved = config_.explicit_unroll;
      config_.explicit_unroll = *AsConstInt(op->value) != 0;
      Stmt body = VisitStmt(op->body);
      config_.explicit_unroll = saved;
      return body;
    }
    return StmtExprMutator::VisitStmt_(op);
  }

  // Post-order: the body's statement count and loop depths are known when the loop decides.
  Stmt VisitStmt_(const ForNode* op) override {
    Stmt stmt = StmtExprMutator::VisitStmt_(op);
    const auto* loop = stmt.as<ForNode>();
    int64_t trips = TripCount(loop);
    // A body that breaks out of or continues this loop cannot be copied out of it.
    bool copyable = trips >= 0 && !LeavesLoop(loop->body);
    bool unroll = loop->kind == ForKind::kSerial && copyable && normal_loop_depth_ == 0 &&
                  unroll_depth_ <= config_.auto_max_depth &&
                  (trips * step_count_ <= config_.auto_max_step || trips <= config_.auto_max_extent);
    if (loop->kind == ForKind::kUnrolled) {
      if (trips < 0) {
        throw ir::PassError(Diagnostic::Error(
            "cannot unroll loop '" + loop->loop_var->name_hint +
                "': its extent is not a constant (T.unroll needs a constant extent)",
            loop->span));
      }
      unroll = copyable;
    }
    if (config_.unroll_local_access && trips > 0 && copyable &&
        touched_local_.count(loop->loop_var.get())) {
      unroll = true;
    }
    if (unroll) {
      step_count_ *= trips;
      unroll_depth_ += 1;
    } else {
      normal_loop_depth_ += 1;
    }
    // As in TVM, auto_max_extent == 1 copies out single-iteration loops even when unrolling is
    // otherwise only marked.
    bool single = copyable && trips <= 1 && config_.auto_max_extent == 1;
    if ((unroll && config_.explicit_unroll) || single) return Unroll(loop, trips);
    if (unroll && loop->kind != ForKind::kUnrolled) {
      For copy = Downcast<ForNode>(stmt);
      copy.CopyOnWrite()->kind = ForKind::kUnrolled;
      return copy;
    }
    return stmt;
  }

  Stmt VisitStmt_(const BufferStoreNode* op) override {
    ++step_count_;
    MarkLocal(op->buffer, op->indices);
    return StmtExprMutator::VisitStmt_(op);
  }
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    MarkLocal(op->buffer, op->indices);
    return StmtExprMutator::VisitExpr_(op);
  }
  Stmt VisitStmt_(const EvaluateNode* op) override {
    ++step_count_;
    return StmtExprMutator::VisitStmt_(op);
  }

  // Each statement of a sequence is counted on its own, then the counts add up and the depths
  // take the deepest.
  Stmt VisitStmt_(const SeqStmtNode* op) override {
    std::vector<Stmt> seq;
    bool changed = false;
    for (const auto& s : op->seq) {
      int64_t steps = step_count_, unroll_depth = unroll_depth_, normal = normal_loop_depth_;
      step_count_ = 0;
      unroll_depth_ = 0;
      normal_loop_depth_ = 0;
      seq.push_back(VisitStmt(s));
      changed |= !seq.back().same_as(s);
      step_count_ += steps;
      normal_loop_depth_ = std::max(normal, normal_loop_depth_);
      unroll_depth_ = std::max(unroll_depth, unroll_depth_);
    }
    if (!changed) return GetRef(op);
    return MakeSeq(std::move(seq), op->span);
  }

 private:
  // The number of iterations when extent and step are constants, else -1.
  int64_t TripCount(const ForNode* loop) {
    PrimExpr simplified_extent = analyzer_.Simplify(loop->extent);  // AsConstInt points into it
    const int64_t* extent = AsConstInt(simplified_extent);
    int64_t step = 1;
    if (loop->step.defined()) {
      PrimExpr simplified_step = analyzer_.Simplify(loop->step);
      const int64_t* s = AsConstInt(simplified_step);
      if (!s || *s <= 0) return -1;
      step = *s;
    }
    if (!extent || *extent > std::numeric_limits<int32_t>::max()) return -1;
    return *extent <= 0 ? 0 : (*extent + step - 1) / step;
  }

  // True when `body` breaks or continues the loop it is the body of (a break inside a nested
  // loop belongs to that loop). Both the statements and `T.break_loop()` / `T.continue_loop()`
  // (how TVMScript's `break` / `continue` parse) count.
  static bool LeavesLoop(const Stmt& body) {
    struct Finder : public StmtVisitor {
      bool found = false;
      void VisitStmt_(const BreakNode*) override { found = true; }
      void VisitStmt_(const ContinueNode*) override { found = true; }
      void VisitStmt_(const EvaluateNode* op) override {
        auto* call = op->value.as<CallNode>();
        auto* callee = call ? call->op.as<ir::OpNode>() : nullptr;
        if (callee && (callee->name == "tirx.break_loop" || callee->name == "tirx.continue_loop")) {
          found = true;
        }
      }
      void VisitStmt_(const ForNode*) override {}
      void VisitStmt_(const WhileNode*) override {}
    } finder;
    finder(body);
    return finder.found;
  }

  void MarkLocal(const Buffer& buffer, const std::vector<PrimExpr>& indices) {
    if (!config_.unroll_local_access) return;
    std::string scope = buffer->scope();
    if (scope != "local" && scope != "warp") return;
    for (const auto& index : indices) {
      PostOrderVisit(index, [this](const Object* node) {
        if (node->type_index() == ir::TypeIndex::kVar ||
            node->type_index() == ir::TypeIndex::kSizeVar) {
          touched_local_.insert(static_cast<const VarNode*>(node));
        }
      });
    }
  }

  Stmt Unroll(const ForNode* loop, int64_t trips) {
    if (trips == 0) return MakeEvaluate(MakeIntImm(DataType::Int(32), 0));
    int64_t step = loop->step.defined() ? *AsConstInt(analyzer_.Simplify(loop->step)) : 1;
    std::vector<Stmt> copies;
    for (int64_t i = 0; i < trips; ++i) {
      PrimExpr value = add(loop->min, make_const(loop->loop_var->dtype, i * step));
      Stmt copy = Substitute(loop->body, {{loop->loop_var.get(), value}});
      // The first copy may keep the body's own definitions; later ones get fresh variables.
      copies.push_back(i == 0 ? copy : DefinitionRenewer()(copy));
    }
    return MakeSeq(std::move(copies), loop->span);
  }

  UnrollConfig config_;
  int64_t step_count_ = 0;
  int64_t unroll_depth_ = 0;
  int64_t normal_loop_depth_ = 0;
  std::unordered_set<const VarNode*> touched_local_;
  arith::Analyzer analyzer_;
};

UnrollConfig ReadConfig(const ir::PassContext& context) {
  UnrollConfig c;
  auto read_int = [&](const char* key, int64_t* out) {
    const ir::Object* v = context.GetConfig("tirx.UnrollLoop", key);
    if (!v) return;
    if (auto* i = dynamic_cast<const ir::IntObj*>(v)) *out = i->value;
    else if (auto* b = dynamic_cast<const ir::BoolObj*>(v)) *out = b->value;
    else throw ir::PassError(Diagnostic::Error(std::string("tirx.UnrollLoop config '") + key +
                                               "' must be an integer or a bool"));
  };
  int64_t explicit_unroll = c.explicit_unroll, local = c.unroll_local_access;
  read_int("auto_max_step", &c.auto_max_step);
  read_int("auto_max_depth", &c.auto_max_depth);
  read_int("auto_max_extent", &c.auto_max_extent);
  read_int("explicit_unroll", &explicit_unroll);
  read_int("unroll_local_access", &local);
  c.explicit_unroll = explicit_unroll != 0;
  c.unroll_local_access = local != 0;
  return c;
}

}  // namespace

ir::Pass UnrollLoop() {
  return tir::CreatePrimFuncPass(
      [](PrimFunc f, const ir::IRModule&, const ir::PassContext& context) {
        Stmt body = LoopUnroller(ReadConfig(context))(f->body);
        if (body.same_as(f->body)) return f;
        PrimFunc copy = f;
        copy.CopyOnWrite()->body = body;
        return copy;
      },
      0, "UnrollLoop");
}

static PassConfigRegistrar config_registrar(
    {"tirx.UnrollLoop",
     "when UnrollLoop unrolls a loop by itself (T.unroll loops always are)",
     {{"auto_max_step", ParamType::kInt, ir::MakeInt(0),
       "a serial loop nest is unrolled when extent x statements is at most this"},
      {"auto_max_depth", ParamType::kInt, ir::MakeInt(8),
       "at most this many nested loops are unrolled automatically"},
      {"auto_max_extent", ParamType::kInt, ir::MakeInt(0),
       "a serial loop of at most this extent is unrolled whatever its body"},
      {"explicit_unroll", ParamType::kBool, ir::MakeBool(true),
       "copy the body once per iteration; False marks the loop T.unroll for the code generator"},
      {"unroll_local_access", ParamType::kBool, ir::MakeBool(false),
       "unroll loops whose variable indexes local memory, so it can live in registers"}}});

static PassRegistrar registrar({"UnrollLoop",
                                "unrolls T.unroll loops and small loops (tirx.UnrollLoop config)",
                                {},
                                [](const PassArgs&) { return UnrollLoop(); }});

}  // namespace wb::transform
