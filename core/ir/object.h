// The node system: immutable, intrusively reference-counted IR nodes with a static type index.
//
// Every node kind of the compiler has an entry in TypeIndex. Kinds that share a base class are
// contiguous, so "is this a PrimExpr" is a range check and functors dispatch with a switch that
// the compiler checks for completeness (-Werror=switch): adding a node kind is a compile error
// everywhere it is not handled yet.
//
// Nodes are shared and never changed once published; a pass builds new nodes and reuses every
// unchanged subtree. Ref<T>::CopyOnWrite() mutates in place only when the node is not shared.
// Every node can carry a Span back to the source text it came from.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ir/dtype.h"
#include "support/span.h"

namespace wb::ir {

enum class TypeIndex : uint32_t {
  kObject = 0,
  // Boxed values and containers (attribute and annotation values).
  kString,
  kInt,
  kFloat,
  kBool,
  kArray,
  kMap,
  // Types (shared by TensorIR and Relax).
  kTypeBegin,
  kPrimType = kTypeBegin,
  kPointerType,
  kTupleType,
  kShapeType,
  kTensorType,
  kObjectType,
  kFuncType,
  kPackedFuncType,
  kTypeEnd,
  // Module-level objects.
  kRange = kTypeEnd,
  kIRModule,
  kVDevice,  // a GlobalInfo held in IRModule::global_infos
  // Functions (TensorIR and Relax), then the other callee kinds. Relax expressions form one
  // contiguous range from kRelaxFunction to kRelaxExprEnd: Relax functions, extern functions,
  // global references and ops are all Relax expressions, as in TVM.
  kBaseFuncBegin,
  kPrimFunc = kBaseFuncBegin,
  kRelaxFunction,
  kExternFunc,
  kBaseFuncEnd,
  kGlobalVar = kBaseFuncEnd,
  kOp,
  kRelaxVar,
  kDataflowVar,
  kConstant,
  kTuple,
  kTupleGetItem,
  kShapeExpr,
  kPrimValue,
  kRelaxStringImm,
  kDataTypeImm,
  kRelaxCall,
  kRelaxIf,
  kSeqExpr,
  kRelaxExprEnd,
  // Relax bindings and binding blocks.
  kBindingBegin = kRelaxExprEnd,
  kVarBinding = kBindingBegin,
  kMatchCast,
  kBindingEnd,
  kBindingBlock = kBindingEnd,
  kDataflowBlock,
  // TensorIR expressions.
  kPrimExprBegin,
  kIntImm = kPrimExprBegin,
  kFloatImm,
  kStringImm,
  kVar,
  kSizeVar,
  kCast,
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMod,
  kFloorDiv,
  kFloorMod,
  kMin,
  kMax,
  kEQ,
  kNE,
  kLT,
  kLE,
  kGT,
  kGE,
  kAnd,
  kOr,
  kNot,
  kSelect,
  kBufferLoad,
  kRamp,
  kBroadcast,
  kShuffle,
  kLet,
  kCall,
  kReduce,
  kPrimExprEnd,
  // TensorIR statements.
  kStmtBegin = kPrimExprEnd,
  kBind = kStmtBegin,
  kAttrStmt,
  kAssertStmt,
  kBufferStore,
  kAllocBuffer,
  kDeclBuffer,
  kFor,
  kWhile,
  kIfThenElse,
  kSeqStmt,
  kEvaluate,
  kSBlock,
  kSBlockRealize,
  kBreak,
  kContinue,
  kStmtEnd,
  // Other TensorIR objects.
  kBuffer = kStmtEnd,
  kIterVar,
  kBufferRegion,
  kMatchBufferRegion,
  kCommReducer,
  kIndexMap,
  kCount,
};

constexpr TypeIndex NextIndex(TypeIndex t) { return TypeIndex(uint32_t(t) + 1); }

// The registered name of a node kind ("tirx.Add"), as TVM names it.
const char* TypeKeyOf(TypeIndex index);
// Inverse of TypeKeyOf; kCount when unknown.
TypeIndex TypeIndexOfKey(std::string_view key);

class FieldVisitor;

class Object {
 public:
  static constexpr TypeIndex kTypeIndexBegin = TypeIndex::kObject;
  static constexpr TypeIndex kTypeIndexEnd = TypeIndex::kCount;
  static constexpr bool kIsFinal = false;

  Object() = default;
  // Copies never share the reference count.
  Object(const Object& other) : span(other.span), type_index_(other.type_index_) {}
  Object& operator=(const Object&) = delete;
  virtual ~Object() = default;

  TypeIndex type_index() const { return type_index_; }
  const char* type_key() const { return TypeKeyOf(type_index_); }

  // Reflection: calls the visitor once for each field, in the node's canonical order
  // (binding occurrences before uses). Used by structural equality/hash and JSON.
  virtual void VisitFields(FieldVisitor* visitor) {}
  // A fresh copy of this node (same dynamic type), used by CopyOnWrite.
  virtual Object* Clone() const = 0;

  void IncRef() const { ref_count_.fetch_add(1, std::memory_order_relaxed); }
  void DecRef() const {
    if (ref_count_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  bool unique() const { return ref_count_.load(std::memory_order_relaxed) == 1; }

  // Where this node came from; undefined for nodes built by passes.
  Span span;

 protected:
  template <typename T>
  friend T* MakeRawNode();
  TypeIndex type_index_ = TypeIndex::kObject;

 private:
  mutable std::atomic<int32_t> ref_count_{0};
};

// Declares a node kind. Final kinds have one index; base kinds a contiguous range.
#define WB_NODE_FINAL(Class, Index, Parent)                                       \
  static constexpr ::wb::ir::TypeIndex kTypeIndexBegin = ::wb::ir::TypeIndex::Index; \
  static constexpr ::wb::ir::TypeIndex kTypeIndexEnd =                            \
      ::wb::ir::NextIndex(::wb::ir::TypeIndex::Index);                            \
  static constexpr bool kIsFinal = true;                                          \
  using ParentNode = Parent;                                                      \
  ::wb::ir::Object* Clone() const override { return new Class(*this); }

#define WB_NODE_BASE(Class, Begin, End, Parent)                                   \
  static constexpr ::wb::ir::TypeIndex kTypeIndexBegin = ::wb::ir::TypeIndex::Begin; \
  static constexpr ::wb::ir::TypeIndex kTypeIndexEnd = ::wb::ir::TypeIndex::End;  \
  static constexpr bool kIsFinal = false;                                         \
  using ParentNode = Parent;

template <typename T>
bool IsInstance(const Object* obj) {
  if (!obj) return false;
  if constexpr (std::is_same_v<T, Object>) {
    return true;
  } else {
    auto idx = obj->type_index();
    return idx >= T::kTypeIndexBegin && idx < T::kTypeIndexEnd;
  }
}

// A strong reference to an immutable node. Null when default-constructed.
template <typename T>
class Ref {
 public:
  using NodeType = T;

  Ref() = default;
  Ref(std::nullptr_t) {}  // NOLINT(google-explicit-constructor)
  explicit Ref(const T* node) : ptr_(const_cast<Object*>(static_cast<const Object*>(node))) {
    if (ptr_) ptr_->IncRef();
  }
  Ref(const Ref& other) : ptr_(other.ptr_) {
    if (ptr_) ptr_->IncRef();
  }
  Ref(Ref&& other) noexcept : ptr_(other.ptr_) { other.ptr_ = nullptr; }
  template <typename U, typename = std::enable_if_t<std::is_base_of_v<T, U>>>
  Ref(const Ref<U>& other) : ptr_(const_cast<Object*>(other.object())) {  // NOLINT
    if (ptr_) ptr_->IncRef();
  }
  template <typename U, typename = std::enable_if_t<std::is_base_of_v<T, U>>>
  Ref(Ref<U>&& other) noexcept : ptr_(other.release_object()) {}  // NOLINT
  ~Ref() {
    if (ptr_) ptr_->DecRef();
  }
  Ref& operator=(Ref other) noexcept {
    std::swap(ptr_, other.ptr_);
    return *this;
  }

  // The node pointer is kept as an Object* so that Ref<T> works with T only forward-declared.
  const T* get() const { return static_cast<const T*>(ptr_); }
  const T* operator->() const { return get(); }
  const T& operator*() const { return *get(); }
  const Object* object() const { return ptr_; }
  bool defined() const { return ptr_ != nullptr; }
  template <typename U>
  bool same_as(const Ref<U>& other) const {
    return ptr_ == other.object();
  }

  template <typename U>
  const U* as() const {
    return IsInstance<U>(ptr_) ? static_cast<const U*>(ptr_) : nullptr;
  }
  // The same node as a Ref<U>, or null when it is not a U.
  template <typename U>
  Ref<U> as_ref() const {
    return Ref<U>(as<U>());
  }

  // Mutable access, copying the node first when it is shared.
  T* CopyOnWrite() {
    static_assert(T::kIsFinal, "CopyOnWrite needs the concrete node type");
    if (!ptr_->unique()) {
      Object* copy = ptr_->Clone();
      copy->IncRef();
      ptr_->DecRef();
      ptr_ = copy;
    }
    return static_cast<T*>(ptr_);
  }

  Object* release_object() {
    Object* p = ptr_;
    ptr_ = nullptr;
    return p;
  }

  bool operator==(std::nullptr_t) const { return ptr_ == nullptr; }
  bool operator!=(std::nullptr_t) const { return ptr_ != nullptr; }

 private:
  Object* ptr_ = nullptr;
};

using ObjectRef = Ref<Object>;

template <typename T>
T* MakeRawNode() {
  T* node = new T();
  node->type_index_ = T::kTypeIndexBegin;
  return node;
}

// Allocates a node of kind T; fill its fields through the returned pointer before publishing.
template <typename T>
class NodeBuilder {
 public:
  NodeBuilder() : node_(MakeRawNode<T>()) { node_->IncRef(); }
  ~NodeBuilder() {
    if (node_) node_->DecRef();
  }
  NodeBuilder(const NodeBuilder&) = delete;
  T* operator->() { return node_; }
  T& operator*() { return *node_; }
  Ref<T> Finish() {
    Ref<T> ref(node_);
    node_->DecRef();
    node_ = nullptr;
    return ref;
  }

 private:
  T* node_;
};

template <typename T>
Ref<T> GetRef(const T* node) {
  return Ref<T>(node);
}

// Checked downcast: null in, null out; a wrong kind is a bug in the caller.
template <typename To, typename From>
Ref<To> Downcast(const Ref<From>& ref) {
  if (!ref.defined()) return Ref<To>();
  const To* p = ref.template as<To>();
  if (!p) {
    throw std::logic_error(std::string("Downcast from ") + ref->type_key() + " failed");
  }
  return Ref<To>(p);
}

struct ObjectPtrHash {
  template <typename T>
  size_t operator()(const Ref<T>& r) const {
    return std::hash<const void*>()(r.object());
  }
};
struct ObjectPtrEqual {
  template <typename A, typename B>
  bool operator()(const Ref<A>& a, const Ref<B>& b) const {
    return a.object() == b.object();
  }
};

// ---------------------------------------------------------------------------------------------
// Boxed values: what attribute dictionaries and annotations hold (Python ints, strings, lists).

class StringObj : public Object {
 public:
  WB_NODE_FINAL(StringObj, kString, Object)
  std::string value;
  void VisitFields(FieldVisitor* v) override;
};
class IntObj : public Object {
 public:
  WB_NODE_FINAL(IntObj, kInt, Object)
  int64_t value = 0;
  void VisitFields(FieldVisitor* v) override;
};
class FloatObj : public Object {
 public:
  WB_NODE_FINAL(FloatObj, kFloat, Object)
  double value = 0;
  void VisitFields(FieldVisitor* v) override;
};
class BoolObj : public Object {
 public:
  WB_NODE_FINAL(BoolObj, kBool, Object)
  bool value = false;
  void VisitFields(FieldVisitor* v) override;
};
class ArrayObj : public Object {
 public:
  WB_NODE_FINAL(ArrayObj, kArray, Object)
  std::vector<ObjectRef> items;
  void VisitFields(FieldVisitor* v) override;
};

// Attribute dictionaries are sorted by key, as TVM prints them.
using AttrMap = std::map<std::string, ObjectRef>;

class MapObj : public Object {
 public:
  WB_NODE_FINAL(MapObj, kMap, Object)
  AttrMap items;
  void VisitFields(FieldVisitor* v) override;
};

ObjectRef MakeString(std::string value);
ObjectRef MakeInt(int64_t value);
ObjectRef MakeFloat(double value);
ObjectRef MakeBool(bool value);
ObjectRef MakeArray(std::vector<ObjectRef> items);
ObjectRef MakeMap(AttrMap items);

// ---------------------------------------------------------------------------------------------
// Reflection.

// How structural equality treats a field (as TVM's SEqHashDef / SEqHashIgnore flags).
enum class FieldKind : uint8_t {
  kNormal,
  kDef,     // binding occurrence: variables met here are mapped, not compared by identity
  kIgnore,  // not part of the structure (names, hints)
};

class FieldVisitor {
 public:
  virtual ~FieldVisitor() = default;
  virtual void Visit(const char* name, int64_t* value, FieldKind kind) = 0;
  virtual void Visit(const char* name, double* value, FieldKind kind) = 0;
  virtual void Visit(const char* name, bool* value, FieldKind kind) = 0;
  virtual void Visit(const char* name, std::string* value, FieldKind kind) = 0;
  virtual void Visit(const char* name, DataType* value, FieldKind kind) = 0;
  virtual void Visit(const char* name, ObjectRef* value, FieldKind kind) = 0;
  virtual void Visit(const char* name, std::vector<ObjectRef>* value, FieldKind kind) = 0;
  virtual void Visit(const char* name, AttrMap* value, FieldKind kind) = 0;
  // Raw bytes (a constant's tensor data). By default the string visit sees them as lowercase
  // hex, so text formats stay text (and a writing visitor's hex is decoded back); visitors that
  // only read them (hashing, equality, walks) override this and skip the encoding.
  virtual void VisitBytes(const char* name, std::string* bytes, FieldKind kind);
  // True for visitors that write fields (deserialization); typed fields are then checked.
  virtual bool writes() const { return false; }
};

// Adapts typed fields (Ref<T>, std::vector<Ref<T>>, enums, ints) to FieldVisitor.
class Fields {
 public:
  explicit Fields(FieldVisitor* v) : v_(v) {}

  template <typename T>
  Fields& operator()(const char* name, Ref<T>& field, FieldKind kind = FieldKind::kNormal) {
    ObjectRef tmp = field;
    v_->Visit(name, &tmp, kind);
    if (v_->writes()) field = Downcast<T>(tmp);
    return *this;
  }
  template <typename T>
  Fields& operator()(const char* name, std::vector<Ref<T>>& field,
                     FieldKind kind = FieldKind::kNormal) {
    std::vector<ObjectRef> tmp(field.begin(), field.end());
    v_->Visit(name, &tmp, kind);
    if (v_->writes()) {
      field.clear();
      for (auto& item : tmp) field.push_back(Downcast<T>(item));
    }
    return *this;
  }
  Fields& operator()(const char* name, std::vector<ObjectRef>& field,
                     FieldKind kind = FieldKind::kNormal) {
    v_->Visit(name, &field, kind);
    return *this;
  }
  Fields& operator()(const char* name, AttrMap& field, FieldKind kind = FieldKind::kNormal) {
    v_->Visit(name, &field, kind);
    return *this;
  }
  Fields& operator()(const char* name, std::string& field, FieldKind kind = FieldKind::kNormal) {
    v_->Visit(name, &field, kind);
    return *this;
  }
  Fields& operator()(const char* name, DataType& field, FieldKind kind = FieldKind::kNormal) {
    v_->Visit(name, &field, kind);
    return *this;
  }
  Fields& operator()(const char* name, double& field, FieldKind kind = FieldKind::kNormal) {
    v_->Visit(name, &field, kind);
    return *this;
  }
  Fields& operator()(const char* name, bool& field, FieldKind kind = FieldKind::kNormal) {
    v_->Visit(name, &field, kind);
    return *this;
  }
  template <typename T, typename = std::enable_if_t<std::is_integral_v<T> || std::is_enum_v<T>>>
  Fields& operator()(const char* name, T& field, FieldKind kind = FieldKind::kNormal) {
    int64_t tmp = static_cast<int64_t>(field);
    v_->Visit(name, &tmp, kind);
    if (v_->writes()) field = static_cast<T>(tmp);
    return *this;
  }

 private:
  FieldVisitor* v_;
};

// Creates an empty node of a kind, for deserialization; null for kinds without a factory.
Object* CreateEmptyNode(TypeIndex index);
void RegisterNodeFactory(TypeIndex index, Object* (*factory)());

template <typename T>
struct NodeFactoryRegistrar {
  NodeFactoryRegistrar() {
    RegisterNodeFactory(T::kTypeIndexBegin, []() -> Object* { return MakeRawNode<T>(); });
  }
};
#define WB_REGISTER_NODE(Class) \
  static ::wb::ir::NodeFactoryRegistrar<Class> wb_node_registrar_##Class##_


}  // namespace wb::ir
