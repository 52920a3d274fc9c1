// Neural-network ops (relax.nn.*): activations, softmax, convolution and pooling over 1 to 3
// spatial axes (one definition for every rank), normalizations and dropout. Convolution and pooling read their layouts as TVM does: the
// letters of data_layout / kernel_layout name where batch, channels, height and width are.
#include "relax/op/op_common.h"

#include "arith/analyzer.h"

namespace wb::relax {
namespace {

// The padding before plus after an axis; attributes from a model may be huge, and a sum past
// int64 is refused rather than wrapped.
int64_t PadSum(int64_t before, int64_t after, size_t axis) {
  int64_t total = 0;
  if (__builtin_add_overflow(before, after, &total)) {
    throw op_common::TypeError("the padding of axis " + std::to_string(axis) + " adds more than 2^63 - 1 elements");
  }
  return total;
}

using namespace op_common;

Type FloatSameAsInput(const std::vector<Type>& types, bool float_only = true) {
  const TensorTypeNode* x = TensorArg(types, 0, "the input");
  if (float_only && !x->IsUnknownDtype() && !x->dtype.is_floating_point()) {
    throw TypeError("the input must have a floating-point dtype, got " + x->dtype.ToString());
  }
  return GetRef(x);
}

OpInfo Activation(const char* name, bool float_only) {
  OpDef def;
  def.name = std::string("relax.nn.") + name;
  def.args = {"data"};
  def.pattern = OpPatternKind::kElemWise;
  def.infer = [float_only](const Call&, const std::vector<Type>& types) {
    return FloatSameAsInput(types, float_only);
  };
  return Define(std::move(def));
}

// An activation with float attributes (leakyrelu's alpha, softplus's beta and threshold).
OpInfo ActivationWithAttrs(const char* name, const char* attrs_type_key, std::vector<AttrField> attrs) {
  OpDef def;
  def.name = std::string("relax.nn.") + name;
  def.args = {"data"};
  def.pattern = OpPatternKind::kElemWise;
  def.attrs_type_key = attrs_type_key;
  def.attrs = std::move(attrs);
  def.infer = [](const Call&, const std::vector<Type>& types) { return FloatSameAsInput(types); };
  return Define(std::move(def));
}

// nn.pad: pad_width holds (before, after) per axis; the modes are TVM's, of which the
// legalization handles "constant".
OpInfo Pad() {
  OpDef def;
  def.name = "relax.nn.pad";
  def.args = {"data"};
  def.pattern = OpPatternKind::kInjective;
  def.attrs_type_key = "relax.attrs.PadAttrs";
  def.attrs = {IntsAttr("pad_width", {}), FloatAttr("pad_value", 0.0), StringAttr("pad_mode", "constant")};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the data");
    std::vector<int64_t> width = AttrInts(call, "pad_width");
    std::string mode = AttrString(call, "pad_mode");
    if (mode != "constant" && mode != "edge" && mode != "reflect") {
      throw TypeError("pad_mode must be constant, edge or reflect, got " + mode);
    }
    if (x->IsUnknownNdim()) return GetRef(x);
    if (width.size() != static_cast<size_t>(2 * x->ndim)) {
      throw TypeError("pad_width must have 2 values per axis (" + std::to_string(2 * x->ndim) + "), got " +
                      std::to_string(width.size()));
    }
    for (int64_t w : width) {
      if (w < 0) throw TypeError("pad_width must not be negative");
    }
    if (!x->shape) return GetRef(x);
    std::vector<PrimExpr> dims = *x->shape;
    for (size_t i = 0; i < dims.size(); ++i) {
      dims[i] = Add(dims[i], Int64(PadSum(width[2 * i], width[2 * i + 1], i)));
    }
    return WithVDevice(MakeTensorType(dims, x->dtype), x->vdevice);
  };
  return Define(std::move(def));
}

OpInfo Softmax(const char* name) {
  OpDef def;
  def.name = std::string("relax.nn.") + name;
  def.args = {"data"};
  def.pattern = OpPatternKind::kOpaque;
  def.attrs_type_key = "relax.attrs.SoftmaxAttrs";
  def.attrs = {IntAttr("axis", -1)};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    Type out = FloatSameAsInput(types);
    int64_t ndim = types[0].as<TensorTypeNode>()->ndim;
    if (ndim != kUnknownNDim) NormalizeAxis(AttrInt(call, "axis"), ndim);
    return out;
  };
  return Define(std::move(def));
}

// A layout as TVM writes it: each of the canonical letters once as a primal axis (a capital),
// in any order, plus sub-axes that split one of them, a factor and the axis's lowercase letter
// ("NCHW4c": C as C/4 blocks of 4 channels), as TVM's convolutions and pools accept.
struct BlockedLayout {
  std::vector<char> axes;        // per dim: its letter (lowercase for a sub-axis)
  std::vector<int64_t> factors;  // per dim: a sub-axis's factor, 0 for a primal axis
  std::vector<size_t> primal;    // per canonical letter: the dim of its primal axis
  size_t rank() const { return axes.size(); }
  // The product of the sub-axis factors of canonical letter `c`.
  int64_t Factor(char c) const {
    int64_t f = 1;
    for (size_t i = 0; i < axes.size(); ++i) {
      if (axes[i] == char(c - 'A' + 'a')) f *= factors[i];
    }
    return f;
  }
};

BlockedLayout ParseLayout(const std::string& layout, const std::string& letters, const char* what) {
  auto fail = [&]() -> BlockedLayout {
    throw TypeError(std::string(what) + " layout " + layout + " is not supported (expected a " +
                    "permutation of " + letters + ", with sub-axes such as " + letters + "4" +
                    char(letters[1] - 'A' + 'a') + ")");
  };
  BlockedLayout l;
  l.primal.assign(letters.size(), size_t(-1));
  for (size_t i = 0; i < layout.size();) {
    int64_t factor = 0;
    size_t digits = 0;
    while (i < layout.size() && layout[i] >= '0' && layout[i] <= '9') {
      if (factor > (int64_t(1) << 40)) return fail();
      factor = factor * 10 + (layout[i++] - '0');
      ++digits;
    }
    if (i == layout.size()) return fail();
    char c = layout[i++];
    if (c >= 'A' && c <= 'Z') {
      size_t k = letters.find(c);
      if (digits || k == std::string::npos || l.primal[k] != size_t(-1)) return fail();
      l.primal[k] = l.axes.size();
      l.factors.push_back(0);
    } else if (c >= 'a' && c <= 'z') {
      if (!digits || factor <= 0 || letters.find(char(c - 'a' + 'A')) == std::string::npos) return fail();
      l.factors.push_back(factor);
    } else {
      return fail();
    }
    l.axes.push_back(c);
  }
  for (size_t k : l.primal) {
    if (k == size_t(-1)) return fail();
  }
  return l;
}

// The canonical dims (the order of `letters`) of a shape in layout `l`: a split axis counts its
// blocks times its factors. A sub-axis dim that is a constant other than its factor is an error.
std::vector<PrimExpr> ToCanonical(const BlockedLayout& l, const std::string& letters,
                                  const std::vector<PrimExpr>& dims, const char* what) {
  for (size_t i = 0; i < l.rank(); ++i) {
    if (!l.factors[i]) continue;
    auto c = AsConstInt(dims[i]);
    if (c && *c != l.factors[i]) {
      throw TypeError(std::string("the ") + what + "'s sub-axis " + std::to_string(l.factors[i]) +
                      l.axes[i] + " has extent " + std::to_string(*c));
    }
  }
  std::vector<PrimExpr> out;
  for (size_t k = 0; k < letters.size(); ++k) {
    out.push_back(Mul(dims[l.primal[k]], Int64(l.Factor(letters[k]))));
  }
  return out;
}

// Canonical dims placed in layout `l`: a split axis's blocks are its dim divided by its factors.
std::vector<PrimExpr> FromCanonical(const BlockedLayout& l, const std::string& letters,
                                    const std::vector<PrimExpr>& canonical) {
  std::vector<PrimExpr> out(l.rank());
  for (size_t k = 0; k < letters.size(); ++k) {
    int64_t f = l.Factor(letters[k]);
    out[l.primal[k]] = f == 1 ? canonical[k] : FloorDiv(canonical[k], Int64(f));
  }
  for (size_t i = 0; i < l.rank(); ++i) {
    if (l.factors[i]) out[i] = Int64(l.factors[i]);
  }
  return out;
}

// The spatial letters of a layout with `k` spatial axes, outermost first.
std::string Spatial(size_t k) { return k == 1 ? "W" : k == 2 ? "HW" : "DHW"; }

// An attribute with one value per spatial axis (one value: the same on every axis), each positive.
std::vector<int64_t> PerAxis(const Call& call, const char* name, size_t k) {
  std::vector<int64_t> v = AttrInts(call, name);
  if (v.size() == 1) v.assign(k, v[0]);
  if (v.size() != k) {
    throw TypeError(std::string(name) + " must have " + (k == 1 ? "1 value" : "1 or " + std::to_string(k) + " values") +
                    ", got " + std::to_string(v.size()));
  }
  for (int64_t x : v) {
    if (x <= 0) throw TypeError(std::string(name) + " must be positive");
  }
  return v;
}

// Padding as the befores then the afters of the `k` spatial axes: given as one value (every
// side), one per axis (both sides) or all 2k.
std::vector<int64_t> PaddingOf(const Call& call, size_t k) {
  std::vector<int64_t> p = AttrInts(call, "padding");
  if (p.size() == 1) p.assign(2 * k, p[0]);
  if (p.size() == k) p.insert(p.end(), p.begin(), p.end());
  if (p.size() != 2 * k) {
    std::string allowed = k == 1 ? "1 or 2" : "1, " + std::to_string(k) + " or " + std::to_string(2 * k);
    throw TypeError("padding must have " + allowed + " values, got " + std::to_string(AttrInts(call, "padding").size()));
  }
  for (int64_t x : p) {
    if (x < 0) throw TypeError("padding must not be negative");
  }
  return p;
}

// Writes padding given as one value or one per axis out as the 2k befores and afters, as TVM's
// constructors complete it (GetCompletePadding1D/2D/3D), so that the text shows all of them.
FNormalize CompletePadding(size_t k) {
  return [k](const Call& call) -> Call {
    std::vector<int64_t> p = AttrInts(call, "padding");
    if (p.size() == 2 * k) return call;
    if (p.size() == 1) p.assign(2 * k, p[0]);
    if (p.size() == k) p.insert(p.end(), p.begin(), p.end());
    Call out = call;
    out.CopyOnWrite()->attrs["padding"] = IntArray(p);
    return out;
  };
}

void CheckRank(const TensorTypeNode* t, const char* role, size_t rank) {
  if (!t->IsUnknownNdim() && t->ndim != static_cast<int64_t>(rank)) {
    throw TypeError(std::string("the ") + role + " must be " + std::to_string(rank) + "-D, got rank " +
                    std::to_string(t->ndim));
  }
}

// out = (in + pad_before + pad_after - dilation * (kernel - 1) - 1 [+ stride - 1]) // stride + 1
PrimExpr WindowOutput(const PrimExpr& in, const PrimExpr& kernel, int64_t pad, int64_t dilation,
                      int64_t stride, bool ceil_mode) {
  PrimExpr span = Add(Mul(Int64(dilation), Sub(kernel, Int64(1))), Int64(1));
  PrimExpr numer = Sub(Add(in, Int64(pad)), span);
  if (ceil_mode) numer = Add(numer, Int64(stride - 1));
  return Add(FloorDiv(numer, Int64(stride)), Int64(1));
}

// A convolution's out_dtype: the attribute, else the data's, which must then be the weight's.
DataType ConvOutDType(const Call& call, const TensorTypeNode* data, const TensorTypeNode* weight) {
  DataType out_dtype = AttrDataType(call, "out_dtype");
  if (!out_dtype.is_void()) return out_dtype;
  if (!data->IsUnknownDtype() && !weight->IsUnknownDtype() && data->dtype != weight->dtype) {
    throw TypeError("data types " + data->dtype.ToString() + " and " + weight->dtype.ToString() +
                    " of the data and the weight do not match (give out_dtype)");
  }
  return data->dtype;
}

// A convolution's channels: the data's are the weight's input channels times the groups, and the
// weight's output channels divide into the groups.
void CheckConvChannels(const PrimExpr& data_channels, const PrimExpr& per_group, const PrimExpr& out_channels,
                       int64_t groups) {
  PrimExpr expected = Mul(per_group, Int64(groups));
  if (ProveNotEqual(data_channels, expected)) {
    throw TypeError("the data has " + DimText(data_channels) + " input channels but the weight expects " +
                    DimText(expected) + " (" + DimText(per_group) + " per group x " + std::to_string(groups) +
                    " groups)");
  }
  auto out = AsConstInt(out_channels);
  if (out && *out % groups != 0) {
    throw TypeError("the weight's " + std::to_string(*out) + " output channels are not divisible by " +
                    std::to_string(groups) + " groups");
  }
}

// The output layout: the attribute, else the data's (TVM's out_layout=None).
std::string OutLayout(const Call& call, const char* data_attr) {
  std::string out = AttrString(call, "out_layout");
  return out.empty() ? AttrString(call, data_attr) : out;
}

// conv1d / conv2d / conv3d: data NC + spatial letters, weight OI + spatial letters, each in any
// order; strides and dilation one value per spatial axis, padding befores then afters.
OpInfo Conv(size_t k) {
  std::string d = std::to_string(k) + "D";
  OpDef def;
  def.name = "relax.nn.conv" + std::to_string(k) + "d";
  def.args = {"data", "weight"};
  def.pattern = OpPatternKind::kOutEWiseFusable;
  def.attrs_type_key = "relax.attrs.Conv" + d + "Attrs";
  def.normalize = CompletePadding(k);
  def.attrs = {IntsAttr("strides", std::vector<int64_t>(k, 1)),
               IntsAttr("padding", std::vector<int64_t>(2 * k, 0)),
               IntsAttr("dilation", std::vector<int64_t>(k, 1)),
               IntAttr("groups", 1),
               StringAttr("data_layout", "NC" + Spatial(k)),
               StringAttr("kernel_layout", "OI" + Spatial(k)),
               StringAttrFrom("out_layout", "data_layout"),
               DTypeField("out_dtype")};
  def.infer = [k](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* data = TensorArg(types, 0, "the data");
    const TensorTypeNode* weight = TensorArg(types, 1, "the weight");
    DataType out_dtype = ConvOutDType(call, data, weight);
    const std::string dletters = "NC" + Spatial(k), wletters = "OI" + Spatial(k);
    BlockedLayout dl = ParseLayout(AttrString(call, "data_layout"), dletters, "data");
    BlockedLayout wl = ParseLayout(AttrString(call, "kernel_layout"), wletters, "kernel");
    BlockedLayout ol = ParseLayout(OutLayout(call, "data_layout"), dletters, "output");
    CheckRank(data, "data", dl.rank());
    CheckRank(weight, "weight", wl.rank());
    std::vector<int64_t> strides = PerAxis(call, "strides", k);
    std::vector<int64_t> dilation = PerAxis(call, "dilation", k);
    std::vector<int64_t> pad = PaddingOf(call, k);
    int64_t groups = AttrInt(call, "groups");
    if (groups <= 0) throw TypeError("groups must be positive");
    if (!data->shape || !weight->shape) {
      return WithVDevice(MakeTensorType(out_dtype, static_cast<int64_t>(ol.rank())), data->vdevice);
    }
    std::vector<PrimExpr> ds = ToCanonical(dl, dletters, *data->shape, "data");
    std::vector<PrimExpr> ws = ToCanonical(wl, wletters, *weight->shape, "weight");
    CheckConvChannels(ds[1], ws[1], ws[0], groups);
    std::vector<PrimExpr> dims = {ds[0], ws[0]};
    for (size_t i = 0; i < k; ++i) {
      dims.push_back(arith::Analyzer().Simplify(
          WindowOutput(ds[2 + i], ws[2 + i], PadSum(pad[i], pad[k + i], i), dilation[i], strides[i], false)));
    }
    return WithVDevice(MakeTensorType(FromCanonical(ol, dletters, dims), out_dtype), data->vdevice);
  };
  return Define(std::move(def));
}

// conv1d_transpose / conv2d_transpose / conv3d_transpose: the gradient of the convolution with respect to its input.
// The kernel is IO + spatial (input channels, output channels per group, taps); each spatial
// output dim is (in - 1) * stride - pad_before - pad_after + dilation * (kernel - 1) +
// output_padding + 1.
OpInfo ConvTranspose(size_t k) {
  std::string d = std::to_string(k) + "D";
  OpDef def;
  def.name = "relax.nn.conv" + std::to_string(k) + "d_transpose";
  def.args = {"data", "weight"};
  def.pattern = OpPatternKind::kOutEWiseFusable;
  def.attrs_type_key = "relax.attrs.Conv" + d + "TransposeAttrs";
  def.normalize = CompletePadding(k);
  def.attrs = {IntsAttr("strides", std::vector<int64_t>(k, 1)),
               IntsAttr("padding", std::vector<int64_t>(2 * k, 0)),
               IntsAttr("output_padding", std::vector<int64_t>(k, 0)),
               IntsAttr("dilation", std::vector<int64_t>(k, 1)),
               IntAttr("groups", 1),
               StringAttr("data_layout", "NC" + Spatial(k)),
               StringAttr("kernel_layout", "IO" + Spatial(k)),
               StringAttrFrom("out_layout", "data_layout"),
               DTypeField("out_dtype")};
  def.infer = [k](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* data = TensorArg(types, 0, "the data");
    const TensorTypeNode* weight = TensorArg(types, 1, "the weight");
    DataType out_dtype = ConvOutDType(call, data, weight);
    const std::string dletters = "NC" + Spatial(k), wletters = "IO" + Spatial(k);
    BlockedLayout dl = ParseLayout(AttrString(call, "data_layout"), dletters, "data");
    BlockedLayout wl = ParseLayout(AttrString(call, "kernel_layout"), wletters, "kernel");
    BlockedLayout ol = ParseLayout(OutLayout(call, "data_layout"), dletters, "output");
    CheckRank(data, "data", dl.rank());
    CheckRank(weight, "weight", wl.rank());
    std::vector<int64_t> strides = PerAxis(call, "strides", k);
    std::vector<int64_t> dilation = PerAxis(call, "dilation", k);
    std::vector<int64_t> pad = PaddingOf(call, k);
    std::vector<int64_t> out_pad = AttrInts(call, "output_padding");
    if (out_pad.size() == 1) out_pad.assign(k, out_pad[0]);
    if (out_pad.size() != k) {
      throw TypeError("output_padding must have " + (k == 1 ? std::string("1 value") : "1 or " + std::to_string(k) + " values"));
    }
    for (size_t i = 0; i < k; ++i) {
      if (out_pad[i] < 0 || (out_pad[i] >= strides[i] && out_pad[i] >= dilation[i])) {
        throw TypeError("output_padding must be smaller than the stride or the dilation, got " +
                        std::to_string(out_pad[i]));
      }
    }
    int64_t groups = AttrInt(call, "groups");
    if (groups <= 0) throw TypeError("groups must be positive");
    if (!data->shape || !weight->shape) {
      return WithVDevice(MakeTensorType(out_dtype, static_cast<int64_t>(ol.rank())), data->vdevice);
    }
    std::vector<PrimExpr> ds = ToCanonical(dl, dletters, *data->shape, "data");
    std::vector<PrimExpr> ws = ToCanonical(wl, wletters, *weight->shape, "weight");
    if (ProveNotEqual(ds[1], ws[0])) {
      throw TypeError("the data has " + DimText(ds[1]) + " input channels but the weight expects " +
                      DimText(ws[0]));
    }
    auto in_channels = AsConstInt(ws[0]);
    if (in_channels && *in_channels % groups != 0) {
      throw TypeError("the weight's " + std::to_string(*in_channels) + " input channels are not divisible by " +
                      std::to_string(groups) + " groups");
    }
    std::vector<PrimExpr> dims = {ds[0], Mul(ws[1], Int64(groups))};
    for (size_t i = 0; i < k; ++i) {
      PrimExpr span = Add(Mul(Int64(dilation[i]), Sub(ws[2 + i], Int64(1))), Int64(1));
      PrimExpr grown = Mul(Sub(ds[2 + i], Int64(1)), Int64(strides[i]));
      // Simplified as TVM's inference does: (h - 1) * 3 + kh is h * 3 + kh - 3.
      dims.push_back(arith::Analyzer().Simplify(
          Add(Sub(grown, Int64(PadSum(pad[i], pad[k + i], i))), Add(span, Int64(out_pad[i])))));
    }
    return WithVDevice(MakeTensorType(FromCanonical(ol, dletters, dims), out_dtype), data->vdevice);
  };
  return Define(std::move(def));
}

// prelu: x where x > 0, alpha[c] * x elsewhere, c the coordinate on `axis`; alpha is 1-D with
// the data's extent on that axis, or a single value for every channel.
OpInfo PRelu() {
  OpDef def;
  def.name = "relax.nn.prelu";
  def.args = {"data", "alpha"};
  def.pattern = OpPatternKind::kBroadcast;
  def.attrs_type_key = "relax.attrs.PReluAttrs";
  def.attrs = {IntAttr("axis", 1)};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    Type out = FloatSameAsInput(types);
    const auto* x = out.as<TensorTypeNode>();
    const TensorTypeNode* alpha = TensorArg(types, 1, "alpha");
    if (!alpha->IsUnknownNdim() && alpha->ndim != 1) {
      throw TypeError("alpha must be 1-D, got rank " + std::to_string(alpha->ndim));
    }
    if (x->IsUnknownNdim()) return out;
    int64_t axis = NormalizeAxis(AttrInt(call, "axis"), x->ndim);
    // One value is broadcast to every channel (TVM's topi.nn.prelu).
    bool single = alpha->shape && AsConstInt((*alpha->shape)[0]) == 1;
    if (x->shape && alpha->shape && !single &&
        ProveNotEqual((*x->shape)[axis], (*alpha->shape)[0])) {
      throw TypeError("alpha has " + DimText((*alpha->shape)[0]) + " values where the data has " +
                      DimText((*x->shape)[axis]) + " on axis " + std::to_string(axis));
    }
    return out;
  };
  return Define(std::move(def));
}

// max_pool1d/2d/3d and avg_pool1d/2d/3d: the data NC + spatial letters in any order. TVM's
// defaults differ by rank: avg_pool1d and avg_pool3d count the padding by default, avg_pool2d
// does not.
OpInfo Pool(const char* kind, size_t k) {
  std::string d = std::to_string(k) + "d";
  bool include_pad = std::string(kind) == "avg" && k != 2;
  OpDef def;
  def.name = std::string("relax.nn.") + kind + "_pool" + d;
  def.args = {"data"};
  def.pattern = OpPatternKind::kOutEWiseFusable;
  def.attrs_type_key = "relax.attrs.Pool" + std::to_string(k) + "DAttrs";
  def.normalize = CompletePadding(k);
  def.attrs = {IntsAttr("pool_size", std::vector<int64_t>(k, 1)),
               IntsAttr("strides", std::vector<int64_t>(k, 1)),
               IntsAttr("dilation", std::vector<int64_t>(k, 1)),
               IntsAttr("padding", std::vector<int64_t>(2 * k, 0)),
               BoolAttr("ceil_mode", false),
               BoolAttr("count_include_pad", include_pad),
               StringAttr("layout", "NC" + Spatial(k)),
               StringAttrFrom("out_layout", "layout")};
  def.infer = [k](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* data = TensorArg(types, 0, "the data");
    const std::string letters = "NC" + Spatial(k);
    BlockedLayout dl = ParseLayout(AttrString(call, "layout"), letters, "data");
    BlockedLayout ol = ParseLayout(OutLayout(call, "layout"), letters, "output");
    CheckRank(data, "data", dl.rank());
    std::vector<int64_t> pool = PerAxis(call, "pool_size", k);
    std::vector<int64_t> strides = PerAxis(call, "strides", k);
    std::vector<int64_t> dilation = PerAxis(call, "dilation", k);
    std::vector<int64_t> pad = PaddingOf(call, k);
    bool ceil_mode = AttrBool(call, "ceil_mode");
    if (!data->shape) return WithVDevice(MakeTensorType(data->dtype, static_cast<int64_t>(ol.rank())), data->vdevice);
    std::vector<PrimExpr> ds = ToCanonical(dl, letters, *data->shape, "data");
    std::vector<PrimExpr> dims = {ds[0], ds[1]};
    for (size_t i = 0; i < k; ++i) {
      dims.push_back(
          WindowOutput(ds[2 + i], Int64(pool[i]), PadSum(pad[i], pad[k + i], i), dilation[i], strides[i], ceil_mode));
    }
    return WithVDevice(MakeTensorType(FromCanonical(ol, letters, dims), data->dtype), data->vdevice);
  };
  return Define(std::move(def));
}

OpInfo AdaptiveAvgPool2D() {
  OpDef def;
  def.name = "relax.nn.adaptive_avg_pool2d";
  def.args = {"data"};
  def.pattern = OpPatternKind::kOutEWiseFusable;
  def.attrs_type_key = "relax.attrs.AdaptivePool2DAttrs";
  def.attrs = {OptionalIntsAttr("output_size"), StringAttr("layout", "NCHW"),
               StringAttrFrom("out_layout", "layout")};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* data = TensorArg(types, 0, "the data");
    BlockedLayout dl = ParseLayout(AttrString(call, "layout"), "NCHW", "data");
    BlockedLayout ol = ParseLayout(AttrString(call, "out_layout"), "NCHW", "output");
    CheckRank(data, "data", dl.rank());
    if (!data->shape) return MakeTensorType(data->dtype, int64_t(ol.rank()));
    std::vector<PrimExpr> nchw = ToCanonical(dl, "NCHW", *data->shape, "data");
    if (!AttrIsNone(call, "output_size")) {
      std::vector<int64_t> size = AttrInts(call, "output_size");
      if (size.size() == 1) size.push_back(size[0]);
      if (size.size() != 2) throw TypeError("output_size must have 1 or 2 values");
      nchw[2] = Int64(size[0]);
      nchw[3] = Int64(size[1]);
    }
    return MakeTensorType(FromCanonical(ol, "NCHW", nchw), data->dtype);
  };
  return Define(std::move(def));
}

// A parameter of a normalization: a tensor whose shape is the data's dims on `axes`.
void CheckParam(const std::vector<Type>& types, size_t i, const char* role,
                const TensorTypeNode* data, const std::vector<int64_t>& axes) {
  const TensorTypeNode* p = TensorArg(types, i, std::string("the ") + role);
  if (!p->IsUnknownNdim() && p->ndim != static_cast<int64_t>(axes.size())) {
    throw TypeError(std::string("the ") + role + " must have rank " + std::to_string(axes.size()) +
                    ", got " + std::to_string(p->ndim));
  }
  if (!p->shape || !data->shape) return;
  for (size_t k = 0; k < axes.size(); ++k) {
    const PrimExpr& want = (*data->shape)[axes[k]];
    const PrimExpr& got = (*p->shape)[k];
    if (ProveNotEqual(want, got)) {
      throw TypeError(std::string("the ") + role + " has dimension " + DimText(got) +
                      " where the data has " + DimText(want) + " (axis " + std::to_string(axes[k]) +
                      ")");
    }
  }
}

OpInfo BatchNorm() {
  OpDef def;
  def.name = "relax.nn.batch_norm";
  def.args = {"data", "gamma", "beta", "moving_mean", "moving_var"};
  def.pattern = OpPatternKind::kOutEWiseFusable;
  def.attrs_type_key = "relax.attrs.BatchNormAttrs";
  def.attrs = {IntAttr("axis", 1),      FloatAttr("epsilon", 1e-5), BoolAttr("center", true),
               BoolAttr("scale", true), FloatAttr("momentum", 0.1), BoolAttr("training", true)};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    Type data_type = FloatSameAsInput(types);
    const auto* data = data_type.as<TensorTypeNode>();
    if (data->IsUnknownNdim()) {
      return ir::MakeTupleType(
          {data_type, MakeTensorType(data->dtype, 1), MakeTensorType(data->dtype, 1)});
    }
    std::vector<int64_t> axes = {NormalizeAxis(AttrInt(call, "axis"), data->ndim)};
    const char* roles[] = {"gamma", "beta", "moving_mean", "moving_var"};
    for (size_t i = 1; i < 5; ++i) CheckParam(types, i, roles[i - 1], data, axes);
    return ir::MakeTupleType({data_type, types[3], types[4]});
  };
  return Define(std::move(def));
}

OpInfo LayerNorm() {
  OpDef def;
  def.name = "relax.nn.layer_norm";
  def.args = {"data", "gamma", "beta"};
  def.pattern = OpPatternKind::kOutEWiseFusable;
  def.attrs_type_key = "relax.attrs.LayerNormAttrs";
  def.attrs = {IntsAttr("axes", {-1}), FloatAttr("epsilon", 1e-5), BoolAttr("center", true),
               BoolAttr("scale", true)};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    Type data_type = FloatSameAsInput(types);
    const auto* data = data_type.as<TensorTypeNode>();
    if (data->IsUnknownNdim()) return data_type;
    std::vector<int64_t> axes = NormalizeAxes(AttrInts(call, "axes"), data->ndim);
    CheckParam(types, 1, "gamma", data, axes);
    CheckParam(types, 2, "beta", data, axes);
    return data_type;
  };
  return Define(std::move(def));
}

// group_norm / instance_norm: the channels on `channel_axis` split into `num_groups` groups (one
// channel a group for instance_norm), each group of a sample normalized over its channels and
// `axes`, then scaled and shifted per channel by the 1-D gamma and beta.
OpInfo ChannelNorm(bool grouped) {
  OpDef def;
  def.name = grouped ? "relax.nn.group_norm" : "relax.nn.instance_norm";
  def.args = {"data", "gamma", "beta"};
  def.pattern = OpPatternKind::kOutEWiseFusable;
  def.attrs_type_key = grouped ? "relax.attrs.GroupNormAttrs" : "relax.attrs.InstanceNormAttrs";
  if (grouped) def.attrs.push_back(IntAttr("num_groups", 1));
  for (AttrField f : {IntAttr("channel_axis", 1), IntsAttr("axes", {}), FloatAttr("epsilon", 1e-5),
                      BoolAttr("center", true), BoolAttr("scale", true)}) {
    def.attrs.push_back(std::move(f));
  }
  def.infer = [grouped](const Call& call, const std::vector<Type>& types) -> Type {
    Type data_type = FloatSameAsInput(types);
    const auto* data = data_type.as<TensorTypeNode>();
    int64_t groups = grouped ? AttrInt(call, "num_groups") : 1;
    if (groups <= 0) throw TypeError("num_groups must be positive, got " + std::to_string(groups));
    for (size_t i = 1; i < 3; ++i) {
      const TensorTypeNode* p = TensorArg(types, i, i == 1 ? "gamma" : "beta");
      if (!p->IsUnknownDtype() && !data->IsUnknownDtype() && p->dtype != data->dtype) {
        throw TypeError(std::string(i == 1 ? "gamma" : "beta") + " has dtype " + p->dtype.ToString() +
                        " where the data has " + data->dtype.ToString());
      }
    }
    if (data->IsUnknownNdim()) return data_type;
    int64_t channel = NormalizeAxis(AttrInt(call, "channel_axis"), data->ndim);
    std::vector<int64_t> axes = NormalizeAxes(AttrInts(call, "axes"), data->ndim);
    for (int64_t a : axes) {
      if (a == channel) throw TypeError("channel_axis " + std::to_string(channel) + " must not be among the axes");
    }
    if (data->shape) {
      auto c = AsConstInt((*data->shape)[channel]);
      if (c && *c % groups != 0) {
        throw TypeError("the " + std::to_string(*c) + " channels are not divisible by " + std::to_string(groups) +
                        " groups");
      }
    }
    CheckParam(types, 1, "gamma", data, {channel});
    CheckParam(types, 2, "beta", data, {channel});
    return data_type;
  };
  return Define(std::move(def));
}

OpInfo RMSNorm() {
  OpDef def;
  def.name = "relax.nn.rms_norm";
  def.args = {"data", "weight"};
  def.pattern = OpPatternKind::kOutEWiseFusable;
  def.attrs_type_key = "relax.attrs.RMSNormAttrs";
  def.attrs = {IntsAttr("axes", {-1}), FloatAttr("epsilon", 1e-5)};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    Type data_type = FloatSameAsInput(types);
    const auto* data = data_type.as<TensorTypeNode>();
    if (data->IsUnknownNdim()) return data_type;
    std::vector<int64_t> axes = NormalizeAxes(AttrInts(call, "axes"), data->ndim);
    CheckParam(types, 1, "weight", data, axes);
    return data_type;
  };
  return Define(std::move(def));
}

// batch_flatten: (N, d1, ..., dk) -> (N, d1 * ... * dk); rank 2 is kept as it is.
OpInfo BatchFlatten() {
  OpDef def;
  def.name = "relax.nn.batch_flatten";
  def.args = {"data"};
  def.pattern = OpPatternKind::kInjective;
  def.infer = [](const Call&, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the data");
    if (x->IsUnknownNdim()) return WithVDevice(MakeTensorType(x->dtype, 2), x->vdevice);
    if (x->ndim < 2) throw TypeError("the data must have at least 2 axes, got " + std::to_string(x->ndim));
    if (x->ndim == 2) return GetRef(x);
    if (!x->shape) return WithVDevice(MakeTensorType(x->dtype, 2), x->vdevice);
    std::vector<PrimExpr> rest(x->shape->begin() + 1, x->shape->end());
    return WithVDevice(MakeTensorType({(*x->shape)[0], Product(rest)}, x->dtype), x->vdevice);
  };
  return Define(std::move(def));
}

OpInfo Dropout() {
  OpDef def;
  def.name = "relax.nn.dropout";
  def.args = {"data"};
  def.pattern = OpPatternKind::kOpaque;
  def.attrs_type_key = "relax.attrs.DropoutAttrs";
  def.attrs = {FloatAttr("rate", 0.5)};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    Type data_type = FloatSameAsInput(types);
    double rate = AttrFloat(call, "rate");
    if (rate < 0 || rate >= 1)
      throw TypeError("rate must be in [0, 1), got " + std::to_string(rate));
    // The output and the mask.
    return ir::MakeTupleType({data_type, data_type});
  };
  return Define(std::move(def));
}

const OpRegistrar kOps[] = {
    OpRegistrar(Activation("relu", false)),
    OpRegistrar(Activation("gelu", true)),
    OpRegistrar(Activation("silu", true)),
    OpRegistrar(Activation("gelu_tanh", true)),
    OpRegistrar(BatchFlatten()),
    OpRegistrar(ActivationWithAttrs("leakyrelu", "relax.attrs.LeakyReluAttrs", {FloatAttr("alpha", 0.01)})),
    OpRegistrar(ActivationWithAttrs("softplus", "relax.attrs.SoftplusAttrs",
                                    {FloatAttr("beta", 1.0), FloatAttr("threshold", 20.0)})),
    OpRegistrar(Pad()),
    OpRegistrar(Softmax("softmax")),
    OpRegistrar(Softmax("log_softmax")),
    OpRegistrar(Conv(1)),
    OpRegistrar(Conv(2)),
    OpRegistrar(Conv(3)),
    OpRegistrar(ConvTranspose(1)),
    OpRegistrar(ConvTranspose(2)),
    OpRegistrar(ConvTranspose(3)),
    OpRegistrar(PRelu()),
    OpRegistrar(Pool("max", 1)),
    OpRegistrar(Pool("max", 2)),
    OpRegistrar(Pool("max", 3)),
    OpRegistrar(Pool("avg", 1)),
    OpRegistrar(Pool("avg", 2)),
    OpRegistrar(Pool("avg", 3)),
    OpRegistrar(AdaptiveAvgPool2D()),
    OpRegistrar(BatchNorm()),
    OpRegistrar(LayerNorm()),
    OpRegistrar(RMSNorm()),
    OpRegistrar(ChannelNorm(true)),
    OpRegistrar(ChannelNorm(false)),
    OpRegistrar(Dropout()),
};

}  // namespace
}  // namespace wb::relax
