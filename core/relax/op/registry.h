// The registry of Relax operators (`relax.add`, `relax.nn.conv2d`, `relax.call_tir`, ...). Each
// op declares what a TVM user knows it by: its positional arguments, its attributes in the order
// of TVM's attrs class (the printer prints all of them, in that order), its type inference, its
// operator pattern (what FuseOps groups) and a slot for its legalization to TensorIR.
//
// One op family a file under relax/op/ registers its ops from a static initializer; the core
// library is linked whole, so every op is present before main().
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "relax/expr.h"
#include "support/diagnostic.h"

namespace wb::relax {

class BlockBuilder;

// TVM's OpPatternKind, with TVM's values.
enum class OpPatternKind : int {
  kElemWise = 0,
  kBroadcast = 1,
  kInjective = 2,
  kCommReduce = 3,
  kOutEWiseFusable = 4,
  kTuple = 7,
  kOpaque = 8,
};
const char* OpPatternKindName(OpPatternKind kind);

// How an attribute's value is held in Call::attrs (an AttrMap of boxed values).
enum class AttrKind : uint8_t {
  kInt,               // IntObj
  kFloat,             // FloatObj
  kBool,              // BoolObj
  kString,            // StringObj
  kDataType,          // StringObj with the dtype's name; "void" when unspecified (TVM's default)
  kIntArray,          // ArrayObj of IntObj
  kOptionalInt,       // IntObj, or null for None
  kOptionalIntArray,  // ArrayObj of IntObj, or null for None
  kIntOrIntArray,     // IntObj or ArrayObj of IntObj (split's indices_or_sections)
  kObject,            // any node, or null (layout_transform's index_map, pad_value)
};

struct AttrField {
  std::string name;
  AttrKind kind;
  ObjectRef default_value;  // null: None
  // When not empty and the call does not give this attribute: the value of that attribute
  // (TVM's `out_layout=None`: the data's layout), not default_value.
  std::string default_from;
};

// What type inference gives: a type, or a diagnostic whose message says what is wrong in the
// user's terms ("matmul: dimension 784 of the first operand does not match dimension 128 of the
// second"). The span is the call's, filled in by the BlockBuilder.
class InferResult {
 public:
  InferResult(Type type) : type_(std::move(type)) {}  // NOLINT(google-explicit-constructor)
  static InferResult Error(std::string message);

  bool ok() const { return type_.defined(); }
  const Type& type() const { return type_; }
  const std::string& message() const { return message_; }

 private:
  InferResult() = default;
  Type type_;
  std::string message_;
};

// `arg_types[i]` is the type of `call->args[i]` (never null: calls with an untyped argument are
// not inferred). Arguments that are values (a ShapeExpr, a PrimValue, a tuple of them) are read
// from `call` itself.
using FInferType = std::function<InferResult(const Call& call, const std::vector<Type>& arg_types)>;
// Puts a typed call into canonical form after inference (TVM's FNormalize): e.g. reshape
// replaces a -1 in its shape argument by the dim it inferred, as TVM's reshape does when the
// call is built, so that printing shows the solved shape.
using FNormalize = std::function<Call(const Call& call)>;
// Rewrites a call of the op into calls of PrimFuncs (TVM's FLegalize); empty until the op's
// TensorIR lowering exists.
using FLegalize = std::function<Expr(BlockBuilder& builder, const Call& call)>;

struct OpInfo {
  ir::Op op;
  std::string name;                    // "relax.nn.conv2d"
  std::vector<std::string> arg_names;  // positional arguments, as TVM's Python API names them
  bool variadic = false;               // the last argument repeats
  size_t optional_args = 0;            // how many trailing arguments may be left out
  bool ty_args = false;                // takes `ty_args=` (sinfo_args): the result's type
  // What TVM's Python API passes for an omitted optional argument `i` (a null Expr: nothing, the
  // call is shorter); the parser fills these in, so the call holds what TVM's would.
  std::function<Expr(size_t i)> default_arg;
  std::string attrs_type_key;          // "relax.attrs.Conv2DAttrs"; empty when attr-less
  std::vector<AttrField> attrs;        // in TVM's field order
  OpPatternKind pattern = OpPatternKind::kOpaque;
  bool pure = true;
  FInferType infer;
  FNormalize normalize;  // may be empty
  FLegalize legalize;
  // TVM's FCallPacked: the runtime function that the VM calls with the op's arguments in place of
  // a kernel ("relax.run.print", "relax.run.nonzero"); empty for ops that legalize. LegalizeOps
  // leaves these calls as they are.
  std::string call_packed;

  // The name after `R.`: "nn.conv2d".
  std::string script_name() const;
  // The declared attribute called `name`, or null.
  const AttrField* FindAttr(std::string_view name) const;
};

// Registers an op (from a family file's static initializer). A second registration of a name is
// a core bug and throws std::logic_error.
void RegisterOp(OpInfo info);
struct OpRegistrar {
  explicit OpRegistrar(OpInfo info) { RegisterOp(std::move(info)); }
};

// Lookup by registered name ("relax.add") or by script name ("add", "nn.conv2d"); null when
// unknown.
const OpInfo* FindOp(std::string_view name);
const OpInfo* FindOpByScriptName(std::string_view script_name);
const OpInfo* InfoOf(const ir::Op& op);
// The op node with this name; throws std::logic_error when unknown (a core bug).
ir::Op GetOp(std::string_view name);
// Every registered op, sorted by name.
std::vector<const OpInfo*> AllOps();
// Lets the TensorIR lowering fill an op's legalization slot later.
void SetLegalize(std::string_view name, FLegalize legalize);

// A call of the op `name` with attributes completed from the declared defaults. Throws
// DiagnosticError on an unknown op, a wrong number of arguments or an undeclared attribute (the
// script parser reports those at the call's span).
Call MakeOpCall(std::string_view name, std::vector<Expr> args, AttrMap attrs = {},
                std::vector<Type> sinfo_args = {}, Span span = {});

// --- Attribute access for inference functions (values as AttrKind documents). ---------------
int64_t AttrInt(const Call& call, const char* name);
double AttrFloat(const Call& call, const char* name);
bool AttrBool(const Call& call, const char* name);
std::string AttrString(const Call& call, const char* name);
DataType AttrDataType(const Call& call, const char* name);  // Void when "void" or absent
std::vector<int64_t> AttrInts(const Call& call, const char* name);
bool AttrIsNone(const Call& call, const char* name);

// Boxing helpers for attribute values.
ObjectRef IntArray(const std::vector<int64_t>& values);
ObjectRef DTypeAttr(DataType dtype);

}  // namespace wb::relax
