#include "te/tensor.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "tir/op.h"

namespace wb::te {

namespace {

// The tensors read while a compute body is being built: Tensor::operator() records into the
// innermost collector, so a stage knows its inputs without walking its body.
thread_local std::vector<std::vector<Tensor>*> g_collectors;

struct CollectScope {
  explicit CollectScope(std::vector<Tensor>* out) { g_collectors.push_back(out); }
  ~CollectScope() { g_collectors.pop_back(); }
  CollectScope(const CollectScope&) = delete;
  CollectScope& operator=(const CollectScope&) = delete;
};

// Only the innermost stage being built reads `t` (a stage built inside another's body reads
// for itself).
void Record(const Tensor& t) {
  if (g_collectors.empty()) return;
  std::vector<Tensor>* c = g_collectors.back();
  for (const Tensor& x : *c) {
    if (x.same_as(t)) return;
  }
  c->push_back(t);
}

std::vector<Var> MakeAxisVars(const std::vector<PrimExpr>& shape,
                              const std::vector<std::string>& names, std::vector<IterVar>* axis) {
  std::vector<Var> vars;
  for (size_t i = 0; i < shape.size(); ++i) {
    std::string name = i < names.size() ? names[i] : "ax" + std::to_string(i);
    DataType t = shape[i]->dtype;
    Var v = tir::MakeVar(name, t);
    axis->push_back(tir::MakeIterVar(ir::MakeRange(tir::make_const(t, int64_t(0)), shape[i]), v,
                                     tir::IterVarType::kDataPar));
    vars.push_back(v);
  }
  return vars;
}

std::vector<IterVar> ReduceAxesOf(const std::vector<PrimExpr>& body) {
  if (auto* r = body[0].as<tir::ReduceNode>()) return r->axis;
  return {};
}

}  // namespace

PrimExpr Tensor::operator()(std::vector<PrimExpr> indices) const {
  if (indices.size() != ndim()) {
    throw std::invalid_argument("te: tensor " + name() + " has " + std::to_string(ndim()) +
                                " dims, indexed with " + std::to_string(indices.size()));
  }
  Record(*this);
  return tir::MakeBufferLoad(buffer(), std::move(indices));
}

PrimExpr Tensor::operator()(const std::vector<Var>& indices) const {
  return (*this)(std::vector<PrimExpr>(indices.begin(), indices.end()));
}

Tensor placeholder(std::vector<PrimExpr> shape, DataType dtype, std::string name) {
  auto op = std::make_shared<OperationNode>();
  op->kind = OperationNode::Kind::kPlaceholder;
  op->name = name;
  op->outputs.push_back(tir::MakeBuffer(std::move(name), std::move(shape), dtype));
  return Tensor(std::move(op), 0);
}

std::vector<std::string> AxisNames(const std::string& prefix, size_t ndim) {
  std::vector<std::string> out;
  for (size_t i = 0; i < ndim; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

std::vector<Tensor> compute_batch(std::vector<PrimExpr> shape, const FBatchCompute& fcompute,
                                  std::string name, std::string tag, AttrMap attrs,
                                  std::vector<std::string> axis_names) {
  auto op = std::make_shared<OperationNode>();
  op->kind = OperationNode::Kind::kCompute;
  op->name = name;
  op->tag = std::move(tag);
  op->attrs = std::move(attrs);
  std::vector<Var> vars = MakeAxisVars(shape, axis_names, &op->axis);
  {
    CollectScope scope(&op->inputs);
    op->body = fcompute(vars);
  }
  if (op->body.empty()) throw std::invalid_argument("te.compute " + name + ": no body");
  op->reduce_axis = ReduceAxesOf(op->body);
  for (size_t i = 0; i < op->body.size(); ++i) {
    // TVM names the outputs of a multi-output stage name.v0, name.v1, ...; its buffers keep
    // the stage name with a suffix.
    std::string out_name = op->body.size() == 1 ? name : name + ".v" + std::to_string(i);
    op->outputs.push_back(tir::MakeBuffer(out_name, shape, op->body[i]->dtype));
  }
  std::vector<Tensor> out;
  Operation shared = op;
  for (size_t i = 0; i < shared->outputs.size(); ++i) out.emplace_back(shared, i);
  return out;
}

Tensor compute(std::vector<PrimExpr> shape, const FCompute& fcompute, std::string name,
               std::string tag, AttrMap attrs, std::vector<std::string> axis_names) {
  return compute_batch(
      std::move(shape),
      [&](const std::vector<Var>& v) { return std::vector<PrimExpr>{fcompute(v)}; },
      std::move(name), std::move(tag), std::move(attrs), std::move(axis_names))[0];
}

IterVar reduce_axis(Range dom, std::string name) {
  DataType t = dom->extent->dtype;
  return tir::MakeIterVar(dom, tir::MakeVar(std::move(name), t), tir::IterVarType::kCommReduce);
}

IterVar reduce_axis(PrimExpr extent, std::string name) {
  DataType t = extent->dtype;
  return reduce_axis(ir::MakeRange(tir::make_const(t, int64_t(0)), std::move(extent)),
                     std::move(name));
}

Var var(std::string name, DataType dtype) { return tir::MakeVar(std::move(name), dtype); }

PrimExpr min_value(DataType t) {
  if (t.is_int()) {
    if (t.bits() >= 64) return tir::make_const(t, std::numeric_limits<int64_t>::lowest());
    return tir::make_const(t, -(int64_t(1) << (t.bits() - 1)));
  }
  if (t.is_uint() || t.is_bool()) return tir::make_const(t, int64_t(0));
  if (t.bits() == 64) return tir::make_const(t, std::numeric_limits<double>::lowest());
  if (t.bits() == 16 && t.is_float()) return tir::make_const(t, -65504.0);
  return tir::make_const(t, double(std::numeric_limits<float>::lowest()));
}

PrimExpr max_value(DataType t) {
  if (t.is_int()) {
    if (t.bits() >= 64) return tir::make_const(t, std::numeric_limits<int64_t>::max());
    return tir::make_const(t, (int64_t(1) << (t.bits() - 1)) - 1);
  }
  if (t.is_bool()) return tir::make_const(t, int64_t(1));
  if (t.is_uint()) {
    if (t.bits() >= 64) return tir::make_const(t, int64_t(-1));
    return tir::make_const(t, (int64_t(1) << t.bits()) - 1);
  }
  if (t.bits() == 64) return tir::make_const(t, std::numeric_limits<double>::max());
  if (t.bits() == 16 && t.is_float()) return tir::make_const(t, 65504.0);
  return tir::make_const(t, double(std::numeric_limits<float>::max()));
}

CommReducerSpec MakeReducer(
    const std::function<std::vector<PrimExpr>(const std::vector<Var>&, const std::vector<Var>&)>&
        combine,
    std::vector<PrimExpr> identity) {
  std::vector<Var> lhs, rhs;
  bool single = identity.size() == 1;
  for (size_t i = 0; i < identity.size(); ++i) {
    std::string suffix = single ? "" : std::to_string(i);
    lhs.push_back(tir::MakeVar("x" + suffix, identity[i]->dtype));
    rhs.push_back(tir::MakeVar("y" + suffix, identity[i]->dtype));
  }
  std::vector<PrimExpr> result = combine(lhs, rhs);
  return {tir::MakeCommReducer(lhs, rhs, std::move(result), std::move(identity))};
}

std::vector<PrimExpr> CommReducerSpec::Apply(std::vector<PrimExpr> sources,
                                             std::vector<IterVar> axis, PrimExpr condition) const {
  if (!condition.defined()) condition = tir::make_const(DataType::Bool(), int64_t(1));
  std::vector<PrimExpr> out;
  for (size_t i = 0; i < sources.size(); ++i) {
    ir::NodeBuilder<tir::ReduceNode> n;
    n->dtype = sources[i]->dtype;
    n->combiner = reducer;
    n->source = sources;
    n->axis = axis;
    n->condition = condition;
    n->value_index = static_cast<int64_t>(i);
    out.push_back(n.Finish());
  }
  return out;
}

namespace {

PrimExpr Reduce1(PrimExpr source, std::vector<IterVar> axis, PrimExpr condition,
                 const std::function<PrimExpr(const PrimExpr&, const PrimExpr&)>& f,
                 PrimExpr identity) {
  CommReducerSpec spec =
      MakeReducer([&](const std::vector<Var>& x,
                      const std::vector<Var>& y) { return std::vector<PrimExpr>{f(x[0], y[0])}; },
                  {std::move(identity)});
  return spec.Apply({std::move(source)}, std::move(axis), std::move(condition))[0];
}

}  // namespace

PrimExpr sum(PrimExpr source, std::vector<IterVar> axis, PrimExpr condition) {
  DataType t = source->dtype;
  return Reduce1(
      std::move(source), std::move(axis), std::move(condition),
      [](const PrimExpr& a, const PrimExpr& b) { return tir::add(a, b); },
      tir::make_const(t, int64_t(0)));
}

PrimExpr prod(PrimExpr source, std::vector<IterVar> axis, PrimExpr condition) {
  DataType t = source->dtype;
  return Reduce1(
      std::move(source), std::move(axis), std::move(condition),
      // A product of bools is their conjunction (TVM writes `and`).
      [t](const PrimExpr& a, const PrimExpr& b) { return t.is_bool() ? tir::logical_and(a, b) : tir::mul(a, b); },
      tir::make_const(t, int64_t(1)));
}

PrimExpr max(PrimExpr source, std::vector<IterVar> axis, PrimExpr condition) {
  DataType t = source->dtype;
  return Reduce1(
      std::move(source), std::move(axis), std::move(condition),
      [](const PrimExpr& a, const PrimExpr& b) { return tir::max(a, b); }, min_value(t));
}

PrimExpr min(PrimExpr source, std::vector<IterVar> axis, PrimExpr condition) {
  DataType t = source->dtype;
  return Reduce1(
      std::move(source), std::move(axis), std::move(condition),
      [](const PrimExpr& a, const PrimExpr& b) { return tir::min(a, b); }, max_value(t));
}

}  // namespace wb::te
