#include "ir/object.h"

#include <array>
#include <stdexcept>
#include <string_view>

namespace wb::ir {

namespace {

struct KindName {
  TypeIndex index;
  const char* key;
};

// TVM's type keys, so JSON and messages use the names TVM users know.
constexpr KindName kKindNames[] = {
    {TypeIndex::kObject, "Object"},
    {TypeIndex::kString, "ffi.String"},
    {TypeIndex::kInt, "ffi.Int"},
    {TypeIndex::kFloat, "ffi.Float"},
    {TypeIndex::kBool, "ffi.Bool"},
    {TypeIndex::kArray, "ffi.Array"},
    {TypeIndex::kMap, "ffi.Map"},
    {TypeIndex::kPrimType, "ir.PrimType"},
    {TypeIndex::kPointerType, "ir.PointerType"},
    {TypeIndex::kTupleType, "ir.TupleType"},
    {TypeIndex::kShapeType, "relax.ShapeType"},
    {TypeIndex::kTensorType, "relax.TensorType"},
    {TypeIndex::kObjectType, "relax.ObjectType"},
    {TypeIndex::kFuncType, "ir.FuncType"},
    {TypeIndex::kPackedFuncType, "relax.PackedFuncType"},
    {TypeIndex::kRange, "ir.Range"},
    {TypeIndex::kIRModule, "ir.IRModule"},
    {TypeIndex::kVDevice, "ir.VDevice"},
    {TypeIndex::kPrimFunc, "tirx.PrimFunc"},
    {TypeIndex::kRelaxFunction, "relax.expr.Function"},
    {TypeIndex::kExternFunc, "relax.expr.ExternFunc"},
    {TypeIndex::kGlobalVar, "ir.GlobalVar"},
    {TypeIndex::kOp, "ir.Op"},
    {TypeIndex::kRelaxVar, "relax.expr.Var"},
    {TypeIndex::kDataflowVar, "relax.expr.DataflowVar"},
    {TypeIndex::kConstant, "relax.expr.Constant"},
    {TypeIndex::kTuple, "relax.expr.Tuple"},
    {TypeIndex::kTupleGetItem, "relax.expr.TupleGetItem"},
    {TypeIndex::kShapeExpr, "relax.expr.ShapeExpr"},
    {TypeIndex::kPrimValue, "relax.expr.PrimValue"},
    {TypeIndex::kRelaxStringImm, "relax.expr.StringImm"},
    {TypeIndex::kDataTypeImm, "relax.expr.DataTypeImm"},
    {TypeIndex::kRelaxCall, "relax.expr.Call"},
    {TypeIndex::kRelaxIf, "relax.expr.If"},
    {TypeIndex::kSeqExpr, "relax.expr.SeqExpr"},
    {TypeIndex::kVarBinding, "relax.expr.VarBinding"},
    {TypeIndex::kMatchCast, "relax.expr.MatchCast"},
    {TypeIndex::kBindingBlock, "relax.expr.BindingBlock"},
    {TypeIndex::kDataflowBlock, "relax.expr.DataflowBlock"},
    {TypeIndex::kIntImm, "ir.IntImm"},
    {TypeIndex::kFloatImm, "ir.FloatImm"},
    {TypeIndex::kStringImm, "tirx.StringImm"},
    {TypeIndex::kVar, "tirx.Var"},
    {TypeIndex::kSizeVar, "tirx.SizeVar"},
    {TypeIndex::kCast, "tirx.Cast"},
    {TypeIndex::kAdd, "tirx.Add"},
    {TypeIndex::kSub, "tirx.Sub"},
    {TypeIndex::kMul, "tirx.Mul"},
    {TypeIndex::kDiv, "tirx.Div"},
    {TypeIndex::kMod, "tirx.Mod"},
    {TypeIndex::kFloorDiv, "tirx.FloorDiv"},
    {TypeIndex::kFloorMod, "tirx.FloorMod"},
    {TypeIndex::kMin, "tirx.Min"},
    {TypeIndex::kMax, "tirx.Max"},
    {TypeIndex::kEQ, "tirx.EQ"},
    {TypeIndex::kNE, "tirx.NE"},
    {TypeIndex::kLT, "tirx.LT"},
    {TypeIndex::kLE, "tirx.LE"},
    {TypeIndex::kGT, "tirx.GT"},
    {TypeIndex::kGE, "tirx.GE"},
    {TypeIndex::kAnd, "tirx.And"},
    {TypeIndex::kOr, "tirx.Or"},
    {TypeIndex::kNot, "tirx.Not"},
    {TypeIndex::kSelect, "tirx.Select"},
    {TypeIndex::kBufferLoad, "tirx.BufferLoad"},
    {TypeIndex::kRamp, "tirx.Ramp"},
    {TypeIndex::kBroadcast, "tirx.Broadcast"},
    {TypeIndex::kShuffle, "tirx.Shuffle"},
    {TypeIndex::kLet, "tirx.Let"},
    {TypeIndex::kCall, "tirx.Call"},
    {TypeIndex::kReduce, "tirx.Reduce"},
    {TypeIndex::kBind, "tirx.Bind"},
    {TypeIndex::kAttrStmt, "tirx.AttrStmt"},
    {TypeIndex::kAssertStmt, "tirx.AssertStmt"},
    {TypeIndex::kBufferStore, "tirx.BufferStore"},
    {TypeIndex::kAllocBuffer, "tirx.AllocBuffer"},
    {TypeIndex::kDeclBuffer, "tirx.DeclBuffer"},
    {TypeIndex::kFor, "tirx.For"},
    {TypeIndex::kWhile, "tirx.While"},
    {TypeIndex::kIfThenElse, "tirx.IfThenElse"},
    {TypeIndex::kSeqStmt, "tirx.SeqStmt"},
    {TypeIndex::kEvaluate, "tirx.Evaluate"},
    {TypeIndex::kSBlock, "tirx.SBlock"},
    {TypeIndex::kSBlockRealize, "tirx.SBlockRealize"},
    {TypeIndex::kBreak, "tirx.Break"},
    {TypeIndex::kContinue, "tirx.Continue"},
    {TypeIndex::kBuffer, "tirx.Buffer"},
    {TypeIndex::kIterVar, "tirx.IterVar"},
    {TypeIndex::kBufferRegion, "tirx.BufferRegion"},
    {TypeIndex::kMatchBufferRegion, "tirx.MatchBufferRegion"},
    {TypeIndex::kCommReducer, "tirx.CommReducer"},
    {TypeIndex::kIndexMap, "tirx.IndexMap"},
};

static_assert(std::size(kKindNames) == size_t(TypeIndex::kCount),
              "every TypeIndex needs a type key");

constexpr bool KindNamesInOrder() {
  for (size_t i = 0; i < std::size(kKindNames); ++i) {
    if (size_t(kKindNames[i].index) != i) return false;
  }
  return true;
}
static_assert(KindNamesInOrder(), "kKindNames must follow TypeIndex order");

std::array<Object* (*)(), size_t(TypeIndex::kCount)>& Factories() {
  static std::array<Object* (*)(), size_t(TypeIndex::kCount)> factories{};
  return factories;
}

}  // namespace

const char* TypeKeyOf(TypeIndex index) {
  if (index >= TypeIndex::kCount) return "<unknown>";
  return kKindNames[size_t(index)].key;
}

TypeIndex TypeIndexOfKey(std::string_view key) {
  for (const auto& k : kKindNames) {
    if (key == k.key) return k.index;
  }
  return TypeIndex::kCount;
}

void RegisterNodeFactory(TypeIndex index, Object* (*factory)()) {
  Factories()[size_t(index)] = factory;
}

Object* CreateEmptyNode(TypeIndex index) {
  if (index >= TypeIndex::kCount) return nullptr;
  auto factory = Factories()[size_t(index)];
  return factory ? factory() : nullptr;
}

void StringObj::VisitFields(FieldVisitor* v) { Fields{v}("value", value); }
void IntObj::VisitFields(FieldVisitor* v) { Fields{v}("value", value); }
void FloatObj::VisitFields(FieldVisitor* v) { Fields{v}("value", value); }
void BoolObj::VisitFields(FieldVisitor* v) { Fields{v}("value", value); }
void ArrayObj::VisitFields(FieldVisitor* v) { Fields{v}("items", items); }
void MapObj::VisitFields(FieldVisitor* v) { Fields{v}("items", items); }

WB_REGISTER_NODE(StringObj);
WB_REGISTER_NODE(IntObj);
WB_REGISTER_NODE(FloatObj);
WB_REGISTER_NODE(BoolObj);
WB_REGISTER_NODE(ArrayObj);
WB_REGISTER_NODE(MapObj);

ObjectRef MakeString(std::string value) {
  NodeBuilder<StringObj> n;
  n->value = std::move(value);
  return n.Finish();
}
ObjectRef MakeInt(int64_t value) {
  NodeBuilder<IntObj> n;
  n->value = value;
  return n.Finish();
}
ObjectRef MakeFloat(double value) {
  NodeBuilder<FloatObj> n;
  n->value = value;
  return n.Finish();
}
ObjectRef MakeBool(bool value) {
  NodeBuilder<BoolObj> n;
  n->value = value;
  return n.Finish();
}
ObjectRef MakeArray(std::vector<ObjectRef> items) {
  NodeBuilder<ArrayObj> n;
  n->items = std::move(items);
  return n.Finish();
}
ObjectRef MakeMap(AttrMap items) {
  NodeBuilder<MapObj> n;
  n->items = std::move(items);
  return n.Finish();
}

void FieldVisitor::VisitBytes(const char* name, std::string* bytes, FieldKind kind) {
  static const char* kDigits = "0123456789abcdef";
  std::string hex;
  hex.reserve(bytes->size() * 2);
  for (unsigned char c : *bytes) {
    hex.push_back(kDigits[c >> 4]);
    hex.push_back(kDigits[c & 15]);
  }
  Visit(name, &hex, kind);
  if (!writes()) return;
  auto digit = [](char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  if (hex.size() % 2) {
    throw std::invalid_argument("field '" + std::string(name) + "': an odd number of hex digits");
  }
  bytes->assign(hex.size() / 2, '\0');
  for (size_t i = 0; i < bytes->size(); ++i) {
    int hi = digit(hex[2 * i]);
    int lo = digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) throw std::invalid_argument("field '" + std::string(name) + "': not hex digits");
    (*bytes)[i] = static_cast<char>(hi * 16 + lo);
  }
}

}  // namespace wb::ir
