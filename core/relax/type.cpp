#include "relax/type.h"

#include "arith/analyzer.h"
#include "ir/structural_equal.h"
#include "relax/dim_text.h"

namespace wb::relax {

namespace {

// An optional dim list is reflected as a flag and a list, so that "unknown" and "no dims"
// (a rank-0 shape) stay distinct through JSON.
void VisitOptionalDims(Fields f, FieldVisitor* v, const char* flag, const char* name,
                       std::optional<std::vector<PrimExpr>>& dims) {
  bool known = dims.has_value();
  std::vector<PrimExpr> items = dims.value_or(std::vector<PrimExpr>{});
  f(flag, known)(name, items);
  if (v->writes()) {
    if (known) {
      dims = std::move(items);
    } else {
      dims.reset();
    }
  }
}

// Equal dims as TVM's base check decides: the same expression, or provably equal
// (`w - kw + 1` and `w + 1 - kw`).
bool SameDim(const PrimExpr& a, const PrimExpr& b) {
  if (a.same_as(b) || ir::StructuralEqual(a, b, /*map_free_vars=*/false)) return true;
  if ((tir::AsConstInt(a) && tir::AsConstInt(b)) || a->dtype != b->dtype) return false;
  arith::Analyzer analyzer;
  return analyzer.CanProveEqual(a, b);
}

bool SameDims(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!SameDim(a[i], b[i])) return false;
  }
  return true;
}

std::string DimsToString(const std::vector<PrimExpr>& dims) {
  std::string s = "(";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ", ";
    s += DimToString(dims[i]);
  }
  if (dims.size() == 1) s += ",";
  return s + ")";
}

}  // namespace

bool SameVDevice(const ir::VDevice& a, const ir::VDevice& b) {
  if (a.same_as(b)) return true;
  if (!a.defined() || !b.defined()) return false;
  return a->target == b->target && a->vdevice_id == b->vdevice_id &&
         a->memory_scope == b->memory_scope;
}

std::string VDeviceToString(const ir::VDevice& vdevice) {
  if (!vdevice.defined()) return "<no vdevice>";
  return "I.vdevice(\"" + vdevice->target + "\", " + std::to_string(vdevice->vdevice_id) + ", \"" +
         vdevice->memory_scope + "\")";
}

void ShapeTypeNode::VisitFields(FieldVisitor* v) {
  Fields f{v};
  VisitOptionalDims(f, v, "has_values", "values", values);
  f("ndim", ndim);
}

void TensorTypeNode::VisitFields(FieldVisitor* v) {
  Fields f{v};
  VisitOptionalDims(f, v, "has_shape", "shape", shape);
  f("dtype", dtype)("ndim", ndim)("vdevice", vdevice);
}

void FuncTypeNode::VisitFields(FieldVisitor* v) {
  Fields{v}("params", params)("ret", ret)("purity", purity);
}

void PackedFuncTypeNode::VisitFields(FieldVisitor* v) { Fields{v}("ret", ret)("purity", purity); }

WB_REGISTER_NODE(ShapeTypeNode);
WB_REGISTER_NODE(TensorTypeNode);
WB_REGISTER_NODE(ObjectTypeNode);
WB_REGISTER_NODE(FuncTypeNode);
WB_REGISTER_NODE(PackedFuncTypeNode);

ShapeType MakeShapeType(std::vector<PrimExpr> values, Span span) {
  NodeBuilder<ShapeTypeNode> n;
  n->ndim = static_cast<int64_t>(values.size());
  n->values = std::move(values);
  n->span = std::move(span);
  return n.Finish();
}

ShapeType MakeShapeType(int64_t ndim, Span span) {
  NodeBuilder<ShapeTypeNode> n;
  n->ndim = ndim;
  n->span = std::move(span);
  return n.Finish();
}

TensorType MakeTensorType(std::vector<PrimExpr> shape, DataType dtype, Span span) {
  NodeBuilder<TensorTypeNode> n;
  n->ndim = static_cast<int64_t>(shape.size());
  n->shape = std::move(shape);
  n->dtype = dtype;
  n->span = std::move(span);
  return n.Finish();
}

TensorType MakeTensorType(DataType dtype, int64_t ndim, Span span) {
  NodeBuilder<TensorTypeNode> n;
  n->dtype = dtype;
  n->ndim = ndim;
  n->span = std::move(span);
  return n.Finish();
}

TensorType WithVDevice(const TensorType& type, ir::VDevice vdevice) {
  if (type->vdevice.same_as(vdevice)) return type;
  TensorType copy = type;
  copy.CopyOnWrite()->vdevice = std::move(vdevice);
  return copy;
}

ObjectType MakeObjectType(Span span) {
  NodeBuilder<ObjectTypeNode> n;
  n->span = std::move(span);
  return n.Finish();
}

FuncType MakeFuncType(std::vector<Type> params, Type ret, bool purity, Span span) {
  NodeBuilder<FuncTypeNode> n;
  n->params = std::move(params);
  n->ret = std::move(ret);
  n->purity = purity;
  n->span = std::move(span);
  return n.Finish();
}

PackedFuncType MakePackedFuncType(Type ret, bool purity, Span span) {
  NodeBuilder<PackedFuncTypeNode> n;
  n->ret = ret.defined() ? std::move(ret) : Type(MakeObjectType());
  n->purity = purity;
  n->span = std::move(span);
  return n.Finish();
}

bool IsBaseOf(const Type& base, const Type& sub) {
  if (!base.defined() || !sub.defined()) return false;
  if (base.as<ObjectTypeNode>()) return true;
  if (auto* b = base.as<TensorTypeNode>()) {
    auto* s = sub.as<TensorTypeNode>();
    if (!s) return false;
    if (!b->IsUnknownDtype() && b->dtype != s->dtype) return false;
    if (!b->IsUnknownNdim() && b->ndim != s->ndim) return false;
    // Tensors known to be on another device do not fit; a tensor whose device is unknown may be
    // on it (TVM's "fails only with a runtime check", which calls and annotations accept).
    if (b->vdevice.defined() && s->vdevice.defined() && !SameVDevice(b->vdevice, s->vdevice)) {
      return false;
    }
    if (b->shape) return s->shape && SameDims(*b->shape, *s->shape);
    return true;
  }
  if (auto* b = base.as<ShapeTypeNode>()) {
    auto* s = sub.as<ShapeTypeNode>();
    if (!s) return false;
    if (b->ndim != kUnknownNDim && b->ndim != s->ndim) return false;
    if (b->values) return s->values && SameDims(*b->values, *s->values);
    return true;
  }
  if (auto* b = base.as<PrimTypeNode>()) {
    auto* s = sub.as<PrimTypeNode>();
    return s && (b->dtype.is_void() || b->dtype == s->dtype);
  }
  if (auto* b = base.as<TupleTypeNode>()) {
    auto* s = sub.as<TupleTypeNode>();
    if (!s || s->fields.size() != b->fields.size()) return false;
    for (size_t i = 0; i < b->fields.size(); ++i) {
      if (!IsBaseOf(b->fields[i], s->fields[i])) return false;
    }
    return true;
  }
  if (auto* b = base.as<PackedFuncTypeNode>()) {
    // Any function fits an opaque function type with a wider result and no stronger purity.
    if (auto* s = sub.as<FuncTypeNode>())
      return (!b->purity || s->purity) && IsBaseOf(b->ret, s->ret);
    if (auto* s = sub.as<PackedFuncTypeNode>()) {
      return (!b->purity || s->purity) && IsBaseOf(b->ret, s->ret);
    }
    return false;
  }
  if (auto* b = base.as<FuncTypeNode>()) {
    auto* s = sub.as<FuncTypeNode>();
    if (!s || s->params.size() != b->params.size()) return false;
    if (b->purity && !s->purity) return false;
    // Parameters are contravariant.
    for (size_t i = 0; i < b->params.size(); ++i) {
      if (!IsBaseOf(s->params[i], b->params[i])) return false;
    }
    return IsBaseOf(b->ret, s->ret);
  }
  return false;
}

Type TypeLCA(const Type& a, const Type& b) {
  if (!a.defined() || !b.defined()) return MakeObjectType();
  if (IsBaseOf(a, b)) return a;
  if (IsBaseOf(b, a)) return b;
  auto* ta = a.as<TensorTypeNode>();
  auto* tb = b.as<TensorTypeNode>();
  if (ta && tb) {
    DataType dtype = ta->dtype == tb->dtype ? ta->dtype : DataType::Void();
    int64_t ndim = ta->ndim == tb->ndim ? ta->ndim : kUnknownNDim;
    TensorType lca = MakeTensorType(dtype, ndim);
    if (SameVDevice(ta->vdevice, tb->vdevice)) lca = WithVDevice(lca, ta->vdevice);
    return lca;
  }
  auto* sa = a.as<ShapeTypeNode>();
  auto* sb = b.as<ShapeTypeNode>();
  if (sa && sb) return MakeShapeType(sa->ndim == sb->ndim ? sa->ndim : kUnknownNDim);
  auto* pa = a.as<PrimTypeNode>();
  auto* pb = b.as<PrimTypeNode>();
  if (pa && pb) return ir::MakePrimType(DataType::Void());
  auto* ua = a.as<TupleTypeNode>();
  auto* ub = b.as<TupleTypeNode>();
  if (ua && ub && ua->fields.size() == ub->fields.size()) {
    std::vector<Type> fields;
    for (size_t i = 0; i < ua->fields.size(); ++i) {
      fields.push_back(TypeLCA(ua->fields[i], ub->fields[i]));
    }
    return ir::MakeTupleType(std::move(fields));
  }
  auto* fa = a.as<FuncTypeNode>();
  auto* fb = b.as<FuncTypeNode>();
  if (fa && fb) return MakePackedFuncType(TypeLCA(fa->ret, fb->ret), fa->purity && fb->purity);
  return MakeObjectType();
}

std::string TypeToString(const Type& type) {
  if (!type.defined()) return "<untyped>";
  if (auto* t = type.as<TensorTypeNode>()) {
    std::string s = "R.Tensor(";
    std::string dtype = t->IsUnknownDtype() ? "" : "\"" + t->dtype.ToString() + "\"";
    if (t->shape) {
      s += DimsToString(*t->shape);
      if (!dtype.empty()) s += ", " + dtype;
    } else {
      s += dtype;
      if (!t->IsUnknownNdim() || dtype.empty()) {
        if (!dtype.empty()) s += ", ";
        s += "ndim=" + std::to_string(t->ndim);
      }
    }
    // Without the module at hand the device is named in full, not by its "kind:index".
    if (t->vdevice.defined()) s += ", vdevice=" + VDeviceToString(t->vdevice);
    return s + ")";
  }
  if (auto* t = type.as<ShapeTypeNode>()) {
    if (t->values) {
      std::string dims = DimsToString(*t->values);
      if (t->values->size() == 1) dims.erase(dims.size() - 2, 1);  // [n], not [n,]
      return "R.Shape([" + dims.substr(1, dims.size() - 2) + "])";
    }
    if (t->ndim == kUnknownNDim) return "R.Shape()";
    return "R.Shape(ndim=" + std::to_string(t->ndim) + ")";
  }
  if (auto* t = type.as<PrimTypeNode>()) return "R.Prim(\"" + t->dtype.ToString() + "\")";
  if (type.as<ObjectTypeNode>()) return "R.Object";
  if (auto* t = type.as<TupleTypeNode>()) {
    std::string s = "R.Tuple(";
    for (size_t i = 0; i < t->fields.size(); ++i) {
      if (i) s += ", ";
      s += TypeToString(t->fields[i]);
    }
    return s + ")";
  }
  if (auto* t = type.as<FuncTypeNode>()) {
    std::string s = "R.Callable((";
    for (size_t i = 0; i < t->params.size(); ++i) {
      if (i) s += ", ";
      s += TypeToString(t->params[i]);
    }
    if (t->params.size() == 1) s += ",";
    return s + "), " + TypeToString(t->ret) + ", " + (t->purity ? "True" : "False") + ")";
  }
  if (auto* t = type.as<PackedFuncTypeNode>()) {
    return std::string("R.Callable(ret=") + TypeToString(t->ret) +
           ", purity=" + (t->purity ? "True" : "False") + ")";
  }
  return type->type_key();
}

int64_t NDimOf(const Type& type) {
  if (auto* t = type.as<TensorTypeNode>()) return t->ndim;
  return kUnknownNDim;
}

}  // namespace wb::relax
