// Legalization of the shape-manipulation ops: reshape, permute_dims, expand_dims, squeeze,
// flatten, concat, split, strided_slice, take and broadcast_to.
#include "relax/op/registry.h"
#include "schedule/schedule.h"
#include "tir/index_map.h"
#include "tir/builtin.h"
#include "tir/op.h"
#include "topi/broadcast.h"
#include "topi/transform.h"
#include "transform/relax/legalize/common.h"

namespace wb::transform::legalize {

namespace {

using relax::AttrBool;
using relax::AttrInt;
using relax::AttrInts;
using relax::AttrIsNone;
using relax::AttrString;

std::optional<std::vector<int64_t>> OptionalInts(const Call& call, const char* name) {
  if (AttrIsNone(call, name)) return std::nullopt;
  return AttrInts(call, name);
}

std::vector<int64_t> IntTuple(const Expr& e, const char* what) {
  std::vector<int64_t> out;
  auto* t = e.as<relax::TupleNode>();
  if (!t) throw LegalizeError(std::string(what) + " is not a tuple of constants");
  for (const Expr& f : t->fields) {
    auto* pv = f.as<relax::PrimValueNode>();
    const int64_t* v = pv ? tir::AsConstInt(pv->value) : nullptr;
    if (!v) throw LegalizeError(std::string(what) + " is not a tuple of constants");
    out.push_back(*v);
  }
  return out;
}

// topi reports bad arguments as std::invalid_argument; LegalizeOps reports them as warnings.
template <typename F>
Expr Guard(F&& f) {
  try {
    return f();
  } catch (const std::invalid_argument& e) {
    throw LegalizeError(e.what());
  }
}

// R.layout_transform as TVM legalizes it: a copy stage named te_layout_transform (with
// "_with_pad" when the map's image is larger than the data), whose output the schedule's
// transform_layout rewrites into the new layout (the padding written with pad_value: 0 unless
// given).
Expr LegalizeLayoutTransform(BlockBuilder& bb, const Call& call) {
  auto it = call->attrs.find("index_map");
  const auto* map = it == call->attrs.end() ? nullptr : it->second.as<tir::IndexMapNode>();
  if (!map) throw LegalizeError("the index map is not known");
  OutputTensorType(call);  // the result's shape must be known
  TECall te(bb);
  te::Tensor x = te.Tensor(call, 0);
  ir::DataType dtype = x.dtype();
  double pad = 0;
  if (auto pit = call->attrs.find("pad_value"); pit != call->attrs.end() && pit->second.defined()) {
    const ir::ObjectRef& v = pit->second;
    const ir::Object* value = v.get();
    if (auto* pv = v.as<relax::PrimValueNode>()) value = pv->value.get();
    if (auto* i = dynamic_cast<const ir::IntObj*>(value)) {
      pad = double(i->value);
    } else if (auto* f = dynamic_cast<const ir::FloatObj*>(value)) {
      pad = f->value;
    } else if (auto* ii = dynamic_cast<const tir::IntImmNode*>(value)) {
      pad = double(ii->value);
    } else if (auto* fi = dynamic_cast<const tir::FloatImmNode*>(value)) {
      pad = fi->value;
    } else {
      throw LegalizeError("the pad value is not a constant");
    }
  }
  tir::IndexMap index_map = tir::GetRef(map);
  tir::PaddedInverseResult inverse = tir::NonSurjectiveInverse(index_map, ShapeOf(call->args[0]));
  bool pads = inverse.error.empty() && !tir::AsConstInt(inverse.padding);
  std::string name = pads ? "te_layout_transform_with_pad" : "te_layout_transform";
  te::Tensor copy = te::compute(
      x.shape(), [&](const std::vector<tir::Var>& i) { return x(i); }, name, "", {},
      te::AxisNames("i", x.ndim()));
  ir::ObjectRef pad_value = tir::make_const(dtype, pad);
  auto rewrite = [&](const tir::PrimFunc& func) {
    schedule::Schedule sch(ir::MakeIRModule({ir::MakeGlobalVar("main")}, {func}));
    try {
      sch.TransformLayout(sch.GetSBlock(name), std::pair<std::string, int64_t>("write", 0),
                          index_map, pads ? pad_value : ir::ObjectRef());
    } catch (const schedule::ScheduleError& e) {
      throw LegalizeError("transform_layout: " + e.reason());
    }
    return ir::Downcast<tir::PrimFuncNode>(sch.mod()->Lookup("main"));
  };
  return te.EmitRewritten({copy}, name, rewrite, relax::GetType(call));
}

}  // namespace


void RegisterManipulate(LegalizeTable& table) {
  table["relax.reverse_sequence"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0);
    te::Tensor lengths = te.Tensor(call, 1);
    return Guard([&] {
      return te.Emit(topi::reverse_sequence(x, lengths, AttrInt(call, "seq_axis"),
                                            AttrInt(call, "batch_axis")),
                     "reverse_sequence");
    });
  };
  table["relax.layout_transform"] = LegalizeLayoutTransform;
  table["relax.reshape"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    const relax::TensorTypeNode* out = OutputTensorType(call);
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0);
    return te.Emit(topi::reshape(x, te.Dims(*out->shape)), "reshape");
  };
  table["relax.flatten"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    return te.Emit(topi::flatten(te.Tensor(call, 0)), "reshape");
  };
  table["relax.permute_dims"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0);
    return Guard(
        [&] { return te.Emit(topi::transpose(x, OptionalInts(call, "axes")), "transpose"); });
  };
  table["relax.expand_dims"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0);
    return Guard(
        [&] { return te.Emit(topi::expand_dims(x, AttrInts(call, "axis")), "expand_dims"); });
  };
  table["relax.squeeze"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0);
    return Guard([&] { return te.Emit(topi::squeeze(x, OptionalInts(call, "axis")), "squeeze"); });
  };
  table["relax.concat"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    if (AttrIsNone(call, "axis")) throw LegalizeError("concat without an axis is not supported");
    std::vector<Expr> fields;
    std::vector<relax::Binding> bindings;
    relax::Type arg_type = relax::GetType(call->args[0]);
    if (auto* tuple = call->args[0].as<relax::TupleNode>()) {
      fields = tuple->fields;
    } else if (auto* tt = arg_type.defined() ? arg_type.as<ir::TupleTypeNode>() : nullptr) {
      // A tuple-typed value: its fields taken out first (t[0], t[1], ...), as TVM's call_te does.
      for (size_t i = 0; i < tt->fields.size(); ++i) {
        Expr item = bb.Normalize(relax::MakeTupleGetItem(call->args[0], int64_t(i)));
        relax::Var v = relax::MakeVar(i == 0 ? "gv" : "gv" + std::to_string(i), relax::GetType(item));
        bindings.push_back(relax::MakeVarBinding(v, item));
        fields.push_back(v);
      }
    } else {
      throw LegalizeError("the tensors are not a tuple");
    }
    TECall te(bb);
    std::vector<te::Tensor> xs;
    for (const Expr& f : fields) xs.push_back(te.Tensor(f));
    Expr out = Guard([&] { return te.Emit(topi::concatenate(xs, AttrInt(call, "axis")), "concatenate"); });
    if (bindings.empty()) return out;
    return bb.Normalize(relax::MakeSeqExpr({relax::MakeBindingBlock(std::move(bindings))}, out));
  };
  table["relax.split"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0);
    const ir::ObjectRef& spec = call->attrs.at("indices_or_sections");
    int64_t axis = AttrInt(call, "axis");
    return Guard([&] {
      if (auto* n = spec.as<ir::IntObj>())
        return te.Emit(topi::split_sections(x, n->value, axis), "split");
      return te.Emit(topi::split_indices(x, AttrInts(call, "indices_or_sections"), axis), "split");
    });
  };
  table["relax.strided_slice"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    std::vector<int64_t> axes = IntTuple(call->args[1], "axes");
    std::vector<int64_t> begin = IntTuple(call->args[2], "begin");
    std::vector<int64_t> end = IntTuple(call->args[3], "end");
    std::vector<int64_t> strides(axes.size(), 1);
    if (call->args.size() > 4) strides = IntTuple(call->args[4], "strides");
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0);
    return Guard([&] {
      return te.Emit(topi::strided_slice(x, axes, begin, end, strides), "strided_slice");
    });
  };
  // As TVM legalizes it: a kernel computes the result's shape into a tensor, R.tensor_to_shape
  // makes it a shape that a match_cast binds to fresh symbolic dims s, s1, ..., and the slicing
  // kernel writes a result of those dims. The bindings come back as a SeqExpr, which LegalizeOps
  // splices into the block before the call's binding.
  table["relax.dynamic_strided_slice"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall shape_call(bb);
    te::Tensor x = shape_call.Tensor(call, 0);
    std::vector<te::Tensor> bounds = {shape_call.Tensor(call, 1), shape_call.Tensor(call, 2), shape_call.Tensor(call, 3)};
    Expr shape_tensor = Guard([&] {
      return shape_call.Emit(topi::shape_func_dynamic_strided_slice(x, bounds[0], bounds[1], bounds[2]),
                             "shape_func_dynamic_strided_slice");
    });
    shape_tensor = bb.Normalize(shape_tensor);
    relax::Var tensor_var = relax::MakeVar("shape_tensor", relax::GetType(shape_tensor));
    Expr to_shape = bb.Normalize(relax::MakeOpCall("relax.tensor_to_shape", {tensor_var}));
    relax::Var shape_var = relax::MakeVar("shape", relax::GetType(to_shape));
    std::vector<ir::PrimExpr> dims;
    for (size_t d = 0; d < x.ndim(); ++d) dims.push_back(tir::MakeVar(d == 0 ? "s" : "s" + std::to_string(d), ir::DataType::Int(64)));
    relax::Type cast_type = relax::MakeShapeType(dims);
    relax::Var cast_var = relax::MakeVar("shape_cast", cast_type);
    TECall slice_call(bb);
    te::Tensor sx = slice_call.Tensor(call, 0);
    te::Tensor sb = slice_call.Tensor(call, 1), se = slice_call.Tensor(call, 2), ss = slice_call.Tensor(call, 3);
    Expr slice = Guard([&] {
      return slice_call.Emit(topi::dynamic_strided_slice(sx, sb, se, ss, slice_call.Dims(dims)), "dynamic_strided_slice");
    });
    std::vector<relax::Binding> bindings = {relax::MakeVarBinding(tensor_var, shape_tensor),
                                            relax::MakeVarBinding(shape_var, to_shape),
                                            relax::MakeMatchCast(cast_var, shape_var, cast_type)};
    return bb.Normalize(relax::MakeSeqExpr({relax::MakeBindingBlock(std::move(bindings))}, slice));
  };
  // The shape's values (its ShapeExpr's or its type's) selected by index, as TVM writes it:
  // if_then_else(i == 0, v0, if_then_else(i == 1, v1, ... 0)); a symbolic value is the kernel's
  // scalar parameter. A shape of unknown values has no lowering.
  table["relax.shape_to_tensor"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    std::optional<std::vector<ir::PrimExpr>> values;
    if (auto* e = call->args[0].as<relax::ShapeExprNode>()) values = e->values;
    if (!values) {
      if (auto* t = relax::GetType(call->args[0]).as<relax::ShapeTypeNode>()) values = t->values;
    }
    if (!values) throw LegalizeError("shape_to_tensor: the shape's values are not known");
    TECall te(bb);
    std::vector<ir::PrimExpr> dims = te.Dims(*values);
    auto i64 = ir::DataType::Int(64);
    te::Tensor out = te::compute(
        {tir::make_const(i64, int64_t(dims.size()))},
        [&](const std::vector<tir::Var>& i) {
          ir::PrimExpr result = tir::make_const(i64, int64_t(0));
          for (size_t k = dims.size(); k-- > 0;) {
            ir::PrimExpr at = tir::equal(i[0], tir::make_const(i64, int64_t(k)));
            result = tir::MakeCall(i64, tir::GetOp("tirx.if_then_else"), {at, tir::cast(i64, dims[k]), result});
          }
          return result;
        },
        "shape_to_tensor");
    return te.Emit(out, "shape_to_tensor");
  };
  table["relax.one_hot"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    te::Tensor indices = te.Tensor(call, 0);
    ir::PrimExpr on = te.Scalar(call->args[1]), off = te.Scalar(call->args[2]);
    if (!on.defined() || !off.defined()) throw LegalizeError("one_hot: on_value and off_value must be R.Prim values");
    return Guard([&] {
      return te.Emit(topi::one_hot(indices, on, off, AttrInt(call, "depth"), AttrInt(call, "axis")), "one_hot");
    });
  };
  table["relax.take"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0);
    std::optional<int64_t> axis;
    if (!AttrIsNone(call, "axis")) axis = AttrInt(call, "axis");
    // A scalar index (R.Prim) is read inline, or passed as a scalar parameter.
    if (relax::GetType(call->args[1]).as<ir::PrimTypeNode>()) {
      ir::PrimExpr index = te.Scalar(call->args[1]);
      // An expression of the program's dims (R.prim_value(n - 1)): over the PrimFunc's own dims.
      if (!index.defined()) {
        if (auto* pv = call->args[1].as<relax::PrimValueNode>()) index = te.Dim(pv->value);
      }
      if (!index.defined()) throw LegalizeError("take: the scalar index is neither a constant nor a variable");
      return Guard([&] { return te.Emit(topi::take(x, index, axis, AttrString(call, "mode")), "take"); });
    }
    te::Tensor indices = te.Tensor(call, 1);
    return Guard([&] { return te.Emit(topi::take(x, indices, axis, AttrString(call, "mode")), "take"); });
  };
  table["relax.sort"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0);
    return Guard([&] { return te.Emit(topi::sort(x, AttrInt(call, "axis"), AttrBool(call, "descending")), "sort"); });
  };
  table["relax.argsort"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0);
    ir::DataType dtype = relax::AttrDataType(call, "dtype");
    if (dtype.is_void()) dtype = ir::DataType::Int(32);
    return Guard([&] {
      return te.Emit(topi::argsort(x, AttrInt(call, "axis"), AttrBool(call, "descending"), dtype), "argsort");
    });
  };
  table["relax.topk"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0);
    ir::DataType dtype = relax::AttrDataType(call, "dtype");
    if (dtype.is_void()) dtype = ir::DataType::Int(32);
    std::string ret = AttrString(call, "ret_type");
    return Guard([&] {
      std::vector<te::Tensor> both =
          topi::topk(x, AttrInt(call, "k"), AttrInt(call, "axis"), AttrBool(call, "largest"), dtype);
      if (ret == "values") return te.Emit(both[0], "topk");
      if (ret == "indices") return te.Emit(both[1], "topk");
      return te.Emit(both, "topk");
    });
  };
  table["relax.flip"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0);
    return Guard([&] { return te.Emit(topi::flip(x, AttrInt(call, "axis")), "flip"); });
  };
  table["relax.broadcast_to"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    const relax::TensorTypeNode* out = OutputTensorType(call);
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0);
    return Guard(
        [&] { return te.Emit(topi::broadcast_to(x, te.Dims(*out->shape)), "broadcast_to"); });
  };
  table["relax.gather_elements"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0);
    te::Tensor indices = te.Tensor(call, 1);
    return Guard([&] { return te.Emit(topi::gather_elements(x, indices, AttrInt(call, "axis")), "gather_elements"); });
  };
  table["relax.gather_nd"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0);
    te::Tensor indices = te.Tensor(call, 1);
    return Guard([&] { return te.Emit(topi::gather_nd(x, indices), "gather_nd"); });
  };
  table["relax.scatter_elements"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0);
    te::Tensor indices = te.Tensor(call, 1);
    te::Tensor updates = te.Tensor(call, 2);
    return Guard([&] {
      return te.Emit(topi::scatter_elements(x, indices, updates, AttrInt(call, "axis"), AttrString(call, "reduction")),
                     "scatter_elements");
    });
  };
  table["relax.scatter_nd"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0);
    te::Tensor indices = te.Tensor(call, 1);
    te::Tensor updates = te.Tensor(call, 2);
    return Guard([&] { return te.Emit(topi::scatter_nd(x, indices, updates, AttrString(call, "reduction")), "scatter_nd"); });
  };
  table["relax.repeat"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0);
    return Guard([&] {
      int64_t repeats = AttrInt(call, "repeats");
      if (AttrIsNone(call, "axis")) {
        // Of the flattened data, as TVM legalizes it.
        std::vector<ir::PrimExpr> shape = x.shape();
        ir::PrimExpr n = shape.empty() ? ir::PrimExpr(tir::make_const(ir::DataType::Int(64), int64_t(1))) : shape[0];
        for (size_t d = 1; d < shape.size(); ++d) n = tir::mul(n, shape[d]);
        return te.Emit(topi::repeat(topi::reshape(x, {n}), repeats, 0), "repeat");
      }
      return te.Emit(topi::repeat(x, repeats, AttrInt(call, "axis")), "repeat");
    });
  };
  table["relax.tile"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0);
    return Guard([&] { return te.Emit(topi::tile(x, relax::AttrInts(call, "repeats")), "tile"); });
  };
}

}  // namespace wb::transform::legalize
