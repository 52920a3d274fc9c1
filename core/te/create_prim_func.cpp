#include "te/create_prim_func.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "arith/analyzer.h"
#include "te/access_region.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace wb::te {

namespace {

using tir::Buffer;
using tir::SBlock;
using tir::Stmt;

// TVM's NameSupply: the first use of a name keeps it, later ones get "_1", "_2", ...
class NameSupply {
 public:
  std::string Fresh(const std::string& base) {
    if (used_.insert(base).second) return base;
    for (int i = 1;; ++i) {
      std::string name = base + "_" + std::to_string(i);
      if (used_.insert(name).second) return name;
    }
  }

 private:
  std::set<std::string> used_;
};

// Stages in dependency order: a post-order DFS from the arguments' stages over the read graph.
std::vector<Operation> OrderedOps(const std::vector<Tensor>& roots) {
  std::vector<Operation> order;
  std::unordered_set<const OperationNode*> visited;
  std::function<void(const Operation&)> visit = [&](const Operation& op) {
    if (!visited.insert(op.get()).second) return;
    for (const Tensor& in : op->inputs) visit(in.op());
    order.push_back(op);
  };
  for (const Tensor& t : roots) visit(t.op());
  return order;
}

bool IsTrue(const PrimExpr& e) {
  const int64_t* v = e.defined() ? tir::AsConstInt(e) : nullptr;
  return !e.defined() || (v && *v != 0);
}

std::vector<const tir::VarNode*> FreeVars(const PrimExpr& e) {
  std::vector<const tir::VarNode*> out;
  tir::PostOrderVisit(e, [&](const ir::Object* n) {
    if (auto* v = dynamic_cast<const tir::VarNode*>(n)) out.push_back(v);
  });
  return out;
}

// One dependency level of a stage's axes: the loops it opens and its block's iterators.
struct Scope {
  std::vector<std::pair<Var, Range>> loops;
  std::vector<IterVar> block_iters;
  std::vector<PrimExpr> bindings;
  std::vector<PrimExpr> store_indices;
  tir::VarMap remap;  // original axis var -> this level's block var
};

// TVM's nested iteration levels: an axis whose domain mentions another axis lives one level
// below it.
std::vector<std::vector<IterVar>> NestedLevels(const std::vector<IterVar>& axes,
                                               arith::Analyzer& analyzer) {
  std::unordered_map<const tir::VarNode*, const IterVar*> by_var;
  for (const IterVar& a : axes) by_var[a->var.get()] = &a;
  std::unordered_map<const tir::VarNode*, int> depth;
  int max_depth = 0;
  std::function<int(const IterVar&)> level = [&](const IterVar& a) -> int {
    auto it = depth.find(a->var.get());
    if (it != depth.end()) return it->second;
    int d = 0;
    for (const PrimExpr& e : {analyzer.Simplify(a->dom->min), analyzer.Simplify(a->dom->extent)}) {
      for (const tir::VarNode* v : FreeVars(e)) {
        auto dep = by_var.find(v);
        if (dep != by_var.end() && dep->second->get() != a.get()) {
          d = std::max(d, level(*dep->second) + 1);
        }
      }
    }
    depth[a->var.get()] = d;
    max_depth = std::max(max_depth, d);
    return d;
  };
  for (const IterVar& a : axes) level(a);
  std::vector<std::vector<IterVar>> levels(static_cast<size_t>(max_depth) + 1);
  for (const IterVar& a : axes) levels[depth[a->var.get()]].push_back(a);
  return levels;
}

struct FuncBuilder {
  // The block iterator of a scalar stage (TVM's int32, or the index dtype asked for).
  DataType dummy_index_type = DataType::Int(32);
  std::vector<Tensor> arg_tensors;
  std::unordered_set<const tir::BufferNode*> arg_buffers;
  std::vector<Buffer> root_alloc;
  NameSupply names;
  arith::Analyzer analyzer;

  PrimExpr Remap(const PrimExpr& e, const tir::VarMap& map) { return tir::Substitute(e, map); }

  // The reduction's combiner applied to (lhs, rhs), one value per output.
  static std::vector<PrimExpr> Combine(const tir::ReduceNode* r, const std::vector<PrimExpr>& lhs,
                                       const std::vector<PrimExpr>& rhs) {
    tir::VarMap map;
    for (size_t i = 0; i < lhs.size(); ++i) {
      map[r->combiner->lhs[i].get()] = lhs[i];
      map[r->combiner->rhs[i].get()] = rhs[i];
    }
    std::vector<PrimExpr> out;
    for (const PrimExpr& e : r->combiner->result) out.push_back(tir::Substitute(e, map));
    return out;
  }

  Stmt InitStmt(const std::vector<PrimExpr>& indices, const std::vector<Buffer>& buffers,
                const tir::ReduceNode* r, const tir::VarMap& remap) {
    std::vector<Stmt> stmts;
    for (size_t i = 0; i < buffers.size(); ++i) {
      stmts.push_back(tir::MakeBufferStore(
          buffers[i], Remap(r->combiner->identity_element[i], remap), indices));
    }
    return tir::MakeSeq(std::move(stmts));
  }

  Stmt BodyStmt(const std::vector<PrimExpr>& indices, const std::vector<Buffer>& buffers,
                const tir::VarMap& remap, const PrimExpr& body) {
    auto* r = body.as<tir::ReduceNode>();
    if (!r) {
      return tir::MakeBufferStore(buffers[0], analyzer.Simplify(Remap(body, remap)), indices);
    }
    if (!IsTrue(r->condition)) {
      throw std::invalid_argument(
          "te.create_prim_func: reductions with a condition are not supported");
    }
    std::vector<PrimExpr> lhs, rhs;
    for (size_t i = 0; i < buffers.size(); ++i) {
      lhs.push_back(tir::MakeBufferLoad(buffers[i], indices));
      rhs.push_back(analyzer.Simplify(Remap(r->source[i], remap)));
    }
    std::vector<PrimExpr> combined = Combine(r, lhs, rhs);
    if (buffers.size() == 1) {
      return tir::MakeBufferStore(buffers[0], Remap(combined[0], remap), indices);
    }
    // Several values: bind every combined value first, so no store feeds another's input.
    std::vector<Stmt> stmts;
    std::vector<Var> temps;
    for (size_t i = 0; i < buffers.size(); ++i) {
      temps.push_back(tir::MakeVar("v_" + buffers[i]->name, buffers[i]->dtype));
      stmts.push_back(tir::MakeBind(temps.back(), Remap(combined[i], remap)));
    }
    for (size_t i = 0; i < buffers.size(); ++i) {
      stmts.push_back(tir::MakeBufferStore(buffers[i], temps[i], indices));
    }
    return tir::MakeSeq(std::move(stmts));
  }

  // The stage's attrs become every one of its blocks' annotations, as in TVM.
  static Stmt Realize(const Scope& s, const std::string& name, Stmt body, Stmt init,
                      const AttrMap& annotations) {
    SBlock block = tir::MakeSBlock(s.block_iters, {}, {}, name, std::move(body), std::move(init),
                                   {}, {}, annotations);
    return tir::MakeSBlockRealize(s.bindings, tir::make_const(DataType::Bool(), int64_t(1)), block);
  }

  Stmt FromCompute(const OperationNode& op) {
    std::vector<IterVar> axes = op.axis;
    axes.insert(axes.end(), op.reduce_axis.begin(), op.reduce_axis.end());
    std::vector<std::vector<IterVar>> levels = NestedLevels(axes, analyzer);
    std::vector<Scope> scopes;
    std::unordered_set<const tir::VarNode*> defined;
    for (size_t lv = 0; lv < levels.size(); ++lv) {
      Scope cur;
      for (const IterVar& axis : axes) {
        DataType index_type =
            DataType::Int(std::max(axis->dom->min->dtype.bits(), axis->dom->extent->dtype.bits()));
        bool first = std::any_of(levels[lv].begin(), levels[lv].end(),
                                 [&](const IterVar& a) { return a.same_as(axis); });
        bool reduce = axis->iter_type == tir::IterVarType::kCommReduce;
        if (first) {
          Var loop_var = tir::MakeVar(axis->var->name_hint, index_type);
          Var block_var = tir::MakeVar("v_" + axis->var->name_hint, index_type);
          PrimExpr min = axis->dom->min, extent = axis->dom->extent;
          if (lv > 0) {
            min = Remap(min, scopes[lv - 1].remap);
            extent = Remap(extent, scopes[lv - 1].remap);
          }
          Range dom = ir::MakeRange(analyzer.Simplify(min), analyzer.Simplify(extent));
          cur.loops.emplace_back(loop_var, dom);
          cur.block_iters.push_back(tir::MakeIterVar(dom, block_var, axis->iter_type));
          cur.bindings.push_back(loop_var);
          if (!reduce) cur.store_indices.push_back(block_var);
          cur.remap[axis->var.get()] = block_var;
          defined.insert(axis->var.get());
        } else if (defined.count(axis->var.get())) {
          PrimExpr prev = scopes[lv - 1].remap.at(axis->var.get());
          Var block_var = tir::MakeVar("v_" + axis->var->name_hint, index_type);
          Range dom = ir::MakeRange(prev, tir::make_const(index_type, int64_t(1)));
          cur.block_iters.push_back(tir::MakeIterVar(dom, block_var, axis->iter_type));
          cur.bindings.push_back(prev);
          if (!reduce) cur.store_indices.push_back(block_var);
          cur.remap[axis->var.get()] = block_var;
        }
      }
      if (lv + 1 == levels.size() && cur.block_iters.empty()) {
        // A scalar stage still needs one block iterator.
        Var vi = tir::MakeVar("vi", dummy_index_type);
        cur.block_iters.push_back(
            tir::MakeIterVar(ir::MakeRange(tir::make_const(dummy_index_type, int64_t(0)),
                                           tir::make_const(dummy_index_type, int64_t(1))),
                             vi, tir::IterVarType::kDataPar));
        cur.bindings.push_back(tir::make_const(dummy_index_type, int64_t(0)));
      }
      scopes.push_back(std::move(cur));
    }

    std::vector<Buffer> buffers = op.outputs;
    for (const Buffer& b : buffers) {
      if (!arg_buffers.count(b.get())) root_alloc.push_back(b);
    }
    const Scope& leaf = scopes.back();
    auto* reduce = op.body[0].as<tir::ReduceNode>();
    Stmt body;
    if (reduce) {
      Stmt init = InitStmt(leaf.store_indices, buffers, reduce, leaf.remap);
      Stmt update = BodyStmt(leaf.store_indices, buffers, leaf.remap, op.body[0]);
      body = Realize(leaf, names.Fresh(op.name), update, init, op.attrs);
    } else {
      std::vector<Stmt> seq;
      for (size_t i = 0; i < op.body.size(); ++i) {
        Stmt update = BodyStmt(leaf.store_indices, {buffers[i]}, leaf.remap, op.body[i]);
        seq.push_back(Realize(leaf, names.Fresh(buffers[i]->name), update, {}, op.attrs));
      }
      body = tir::MakeSeq(std::move(seq));
    }
    for (size_t i = scopes.size(); i > 0; --i) {
      const Scope& cur = scopes[i - 1];
      if (i < scopes.size()) {
        std::string block_name = names.Fresh(op.name + "_l" + std::to_string(i));
        Stmt init;
        bool has_reduce = std::any_of(
            cur.block_iters.begin(), cur.block_iters.end(),
            [](const IterVar& v) { return v->iter_type == tir::IterVarType::kCommReduce; });
        if (reduce && has_reduce) init = InitStmt(cur.store_indices, buffers, reduce, cur.remap);
        body = Realize(cur, block_name, body, init, op.attrs);
      }
      for (size_t j = cur.loops.size(); j > 0; --j) {
        const auto& [loop_var, dom] = cur.loops[j - 1];
        body = tir::MakeFor(loop_var, dom->min, dom->extent, tir::ForKind::kSerial, body);
      }
    }
    return body;
  }
};

}  // namespace

tir::PrimFunc create_prim_func(const std::vector<PrimFuncArg>& args, DataType index_dtype) {
  FuncBuilder fb;
  if (!index_dtype.is_void()) fb.dummy_index_type = index_dtype;
  for (const PrimFuncArg& a : args) {
    if (a.tensor.defined()) {
      fb.arg_tensors.push_back(a.tensor);
      fb.arg_buffers.insert(a.tensor.buffer().get());
    }
  }
  std::vector<Stmt> root;
  std::vector<Operation> ops = OrderedOps(fb.arg_tensors);
  // Every tensor a body reads must be a stage of the graph: a read built outside a compute
  // function is not seen as a dependency.
  std::unordered_set<const tir::BufferNode*> known;
  for (const Operation& op : ops) {
    for (const Buffer& b : op->outputs) known.insert(b.get());
  }
  for (const Operation& op : ops) {
    for (const PrimExpr& body : op->body) {
      tir::PostOrderVisit(body, [&](const ir::Object* n) {
        auto* load = dynamic_cast<const tir::BufferLoadNode*>(n);
        if (load && !known.count(load->buffer.get())) {
          throw std::invalid_argument("te.create_prim_func: stage " + op->name + " reads " +
                                      load->buffer->name +
                                      ", which is not a stage of the graph (read it inside the "
                                      "compute function)");
        }
      });
    }
  }
  for (const Operation& op : ops) {
    if (op->kind == OperationNode::Kind::kPlaceholder) {
      if (!fb.arg_buffers.count(op->outputs[0].get())) {
        throw std::invalid_argument("te.create_prim_func: placeholder " + op->name +
                                    " is read but is not an argument of the function");
      }
      continue;
    }
    root.push_back(fb.FromCompute(*op));
  }
  Stmt body = CompleteAccessRegions(tir::MakeSeq(std::move(root)));
  body = tir::MakeSBlockRealize({}, tir::make_const(DataType::Bool(), int64_t(1)),
                                tir::MakeSBlock({}, {}, {}, "root", body, {}, fb.root_alloc));

  std::vector<Var> params;
  std::vector<Buffer> buffer_map;
  for (const PrimFuncArg& a : args) {
    if (a.tensor.defined()) {
      const Buffer& b = a.tensor.buffer();
      params.push_back(tir::MakePointerVar("var_" + b->name, b->dtype, "global"));
      buffer_map.push_back(b);
    } else {
      params.push_back(a.scalar);
      buffer_map.push_back(Buffer());
    }
  }
  AttrMap attrs;
  attrs["global_symbol"] = ir::MakeString("main");
  attrs["tirx.noalias"] = ir::MakeBool(true);
  attrs["s_tir"] = ir::MakeBool(true);
  return tir::MakePrimFunc(std::move(params), std::move(buffer_map), body, {}, std::move(attrs));
}

}  // namespace wb::te
