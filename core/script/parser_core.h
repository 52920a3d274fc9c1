// The TVMScript parser's internals, shared by its translation units: the values an expression
// evaluates to, the scopes names live in, the frames of blocks and functions being built, and
// the Parser class itself (its methods are split by concern over parser_*.cpp).
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/global_info.h"
#include "script/parser_cst.h"
#include "script/tvmscript.h"
#include "tir/index_map.h"
#include "tir/stmt.h"

namespace wb::script::detail {

using ir::DataType;
using ir::ObjectRef;
using ir::PrimExpr;
using tir::Buffer;
using tir::Stmt;
using tir::Var;

// Thrown after a diagnostic has been reported, to skip the rest of the statement (or function)
// being parsed. Never escapes Parse.
struct ParseAbort {};

enum class VK : uint8_t {
  kNone,
  kExpr,       // expr
  kInt,        // Python int: i
  kFloat,      // Python float: f
  kBool,       // Python bool: i
  kStr,        // Python str: s
  kBuffer,     // obj = Buffer
  kScalarBuf,  // a mutable local scalar (a (1,) buffer); reads load element 0
  kRegion,     // obj = BufferRegion (a subscript with slices)
  kList,       // items
  kTuple,      // items
  kDict,       // items: key, value, key, value, ...
  kSlice,      // items: lo, hi, step (kNone when omitted)
  kNamespace,  // s = "T", "T.axis", "I", "R"
  kBuiltin,    // s = qualified name, "T.grid"
  kDType,      // dtype: T.int32 (an annotation, or a constructor when called)
  kType,       // obj = ir::Type (T.handle("float32"))
  kLetType,    // T.let / T.let[dtype]: dtype (void when not given)
  kGlobal,     // obj = GlobalVar
  kClass,      // the @I.ir_module class
  kObject,     // obj = any other IR object (CommReducer, IterVar, Range)
  kTypeVar,    // module-level `n = TypeVar("n")`
  kLambda,     // node
  kMethod,     // s = method name, obj = Buffer (A.vload)
  kBufferSpec, // bspec: T.Buffer(...) / T.alloc_buffer(...) waiting for a name
  kAxis,       // axis: T.axis.spatial(...)
  kLoops,      // loops: range(...), T.grid(...)
  kFrame,      // frame: T.sblock(...), T.init(), T.launch_thread(...), T.attr(...)
};

struct BufferSpec {
  enum Origin { kDecl, kParam, kAlloc, kDeclBuffer, kSBlockAlloc, kMatch } origin = kDecl;
  std::vector<PrimExpr> shape;
  DataType dtype = DataType::Float(32);
  tir::BufferOptions options;
  ir::AttrMap annotations;
  bool has_data = false;
  bool scalar = false;  // T.local_scalar(...): a (1,) buffer read and written without [0]
  // T.match_buffer: the source handle param or region.
  ObjectRef source;
  Span span;
};

struct AxisSpec {
  ir::Range dom;
  PrimExpr binding;
  tir::IterVarType type = tir::IterVarType::kDataPar;
  DataType dtype = DataType::Int(32);
};

struct LoopSpec {
  PrimExpr min;
  PrimExpr extent;
  PrimExpr step;
  tir::ForKind kind = tir::ForKind::kSerial;
  std::string thread;
  ir::AttrMap annotations;
  DataType dtype = DataType::Int(32);
  bool has_dtype = false;
};

struct FrameSpec {
  enum Kind { kSBlock, kInit, kLaunch, kAttr, kLetFrame } kind = kSBlock;
  std::string name;        // block name
  bool no_realize = false;
  // launch_thread: the env var (or null when created from a tag) and its tag/extent.
  Var var;
  std::string tag;
  PrimExpr extent;
  // attr: (node, key, value) chain, outermost first.
  std::vector<std::tuple<ObjectRef, std::string, PrimExpr>> attrs;
};

struct Value {
  VK kind = VK::kNone;
  DataType dtype;
  int64_t i = 0;
  double f = 0;
  std::string s;
  PrimExpr expr;
  ObjectRef obj;
  std::vector<Value> items;
  Node node{};
  std::shared_ptr<BufferSpec> bspec;
  std::shared_ptr<AxisSpec> axis;
  std::shared_ptr<std::vector<LoopSpec>> loops;
  std::shared_ptr<FrameSpec> frame;

  static Value None() { return Value(); }
  static Value Expr(PrimExpr e) {
    Value v;
    v.kind = VK::kExpr;
    v.expr = std::move(e);
    return v;
  }
  static Value Int(int64_t x) {
    Value v;
    v.kind = VK::kInt;
    v.i = x;
    return v;
  }
  static Value Float(double x) {
    Value v;
    v.kind = VK::kFloat;
    v.f = x;
    return v;
  }
  static Value Bool(bool x) {
    Value v;
    v.kind = VK::kBool;
    v.i = x;
    return v;
  }
  static Value Str(std::string x) {
    Value v;
    v.kind = VK::kStr;
    v.s = std::move(x);
    return v;
  }
  static Value Of(VK k, ObjectRef o) {
    Value v;
    v.kind = k;
    v.obj = std::move(o);
    return v;
  }
  static Value Named(VK k, std::string name) {
    Value v;
    v.kind = k;
    v.s = std::move(name);
    return v;
  }
  bool is_number() const { return kind == VK::kInt || kind == VK::kFloat || kind == VK::kBool; }
  bool is_seq() const { return kind == VK::kList || kind == VK::kTuple; }
};

// A human name of a value kind for diagnostics ("a buffer", "a string").
const char* DescribeKind(VK kind);
// Parses a dtype name, accepting T.<name> aliases (f32, i64, boolean).
std::optional<DataType> DTypeFromName(std::string_view name);

// True for T.* / I.* names the parser implements itself (not ops from the builtin registry).
bool IsKnownBuiltin(std::string_view qualified_name);

// Structural equality of small index expressions.
bool SameExpr(const PrimExpr& a, const PrimExpr& b);
// hi - lo, simplified as TVM's parser does for slices and ranges (`lo + X` gives X).
PrimExpr RangeExtent(const PrimExpr& lo, const PrimExpr& hi);

// The arguments of a call, unevaluated: some builtins need the raw CST (lambdas, `where=`).
struct Args {
  Node call{};
  std::vector<Node> pos;
  std::vector<std::pair<std::string_view, Node>> kw;

  Node Kw(std::string_view name) const {
    for (const auto& [k, v] : kw)
      if (k == name) return v;
    return Node{};
  }
};

struct BlockFrame {
  std::string name;
  Span span;
  std::vector<tir::IterVar> iter_vars;
  std::vector<PrimExpr> iter_values;
  PrimExpr predicate;
  bool has_reads = false, has_writes = false;
  std::vector<tir::BufferRegion> reads, writes;
  ir::AttrMap annotations;
  std::vector<Buffer> allocs;
  std::vector<tir::MatchBufferRegion> match_buffers;
  Stmt init;
  bool no_realize = false;
};

struct FuncCtx {
  std::string name;
  bool s_tir = false;
  std::vector<Var> params;
  std::vector<Buffer> buffer_map;
  ir::AttrMap attrs;
  std::vector<Buffer> root_allocs;
  bool has_block = false;
  int top_level_depth = 0;  // statement nesting; 0 = function body
};

// Whether the integer literal v is a value of the scalar type t (TVM's IntImm range check).
bool IntLiteralFits(DataType t, int64_t v);

class Parser {
 public:
  Parser(std::string_view text, std::string path);
  ParseResult Run();

  // --- diagnostics (parser_core.cpp) ---
  void Error(Node n, std::string message);
  [[noreturn]] void Fail(Node n, std::string message);
  Span SpanOf(Node n) const { return cst_->SpanOf(n); }
  std::string_view Text(Node n) const { return cst_->Text(n); }
  K Kind(Node n) const { return cst_->Kind(n); }
  Node Field(Node n, FieldId id) const { return cst_->Field(n, id); }
  FieldIds F() const { return cst_->fields(); }

  // --- scopes (parser_core.cpp) ---
  void PushScope() { scopes_.emplace_back(); }
  void PopScope() { scopes_.pop_back(); }
  void Bind(std::string_view name, Value v) { scopes_.back()[name] = std::move(v); }
  const Value* Lookup(std::string_view name) const;

  // --- conversions (parser_core.cpp) ---
  PrimExpr ToPrim(const Value& v, Node n);
  PrimExpr ToPrimAs(const Value& v, DataType like, Node n);
  // One dimension of a buffer's shape: an integer expression.
  PrimExpr ShapeDim(const Value& v, Node n);
  DataType ToDType(const Value& v, Node n);
  std::string ToStr(const Value& v, Node n);
  int64_t ToInt(const Value& v, Node n);
  bool ToBool(const Value& v, Node n);
  ObjectRef ToAttrValue(const Value& v, Node n);
  Buffer ToBuffer(const Value& v, Node n);
  std::vector<Value> ToSeq(const Value& v, Node n);
  std::string StringLiteral(Node n);

  // --- expressions (parser_tir_expr.cpp) ---
  Value Eval(Node n);
  PrimExpr EvalPrim(Node n) { return ToPrim(Eval(n), n); }
  Value EvalAttribute(Node n);
  Value EvalSubscript(Node n);
  Value EvalBinary(Node n);
  Value BinaryValues(std::string_view op, Value a, Value b, Node n, Node op_node);
  Value EvalCompare(Node n);
  Value EvalCall(Node n);
  Value CallBuiltin(const std::string& name, const Args& args);
  Value CallDType(DataType dtype, const Args& args);
  Value CallOp(std::string_view script_name, const Args& args);
  Value CallMethod(const Value& method, const Args& args);
  // A.access_ptr(...): TVM's tvm_access_ptr call for the buffer.
  Value AccessPtr(const tir::Buffer& b, const Args& args);
  std::vector<PrimExpr> Indices(Node subscript_node, const Buffer& buffer, bool* has_slice,
                                std::vector<ir::Range>* region);
  PrimExpr LoadFromRegion(const tir::BufferRegion& region, Node n);

  // --- buffers and blocks (parser_tir_buffer.cpp) ---
  Value BufferCall(std::string_view name, const Args& args);
  std::vector<PrimExpr> ShapeOf(Node n, bool signature);
  Buffer MakeBufferFromSpec(std::string name, const BufferSpec& spec, Node n);
  std::vector<Stmt> DeclareBuffer(std::string_view name, const Value& spec, Node target);
  Value BlockCall(std::string_view name, const Args& args);
  Value LoopCall(std::string_view name, const Args& args);
  Value StmtCall(std::string_view name, const Args& args);
  Value ExprCall(std::string_view name, const Args& args);
  // `T.index_map(lambda ...)` (parser_index_map.cpp).
  Value IndexMapCall(const Args& args);
  // `T.target(config, host=...)` as the target's text (parser_tir_call.cpp).
  std::string TargetCall(const Args& args);
  std::string TargetText(const Value& config, Node at);
  tir::IndexMap LambdaIndexMap(Node lambda, DataType dtype);
  tir::BufferRegion ToRegion(const Value& v, Node n);
  void InferAccess(BlockFrame& frame, const Stmt& body, bool need_reads, bool need_writes);

  // --- statements (parser_tir_stmt.cpp) ---
  Stmt ParseBody(Node block);
  Stmt ParseStmtsFrom(const std::vector<Node>& stmts, size_t start);
  // One statement; `rest` is set when the statement scopes over the rest of the sequence.
  std::vector<Stmt> ParseStmt(Node s, const std::vector<Node>& stmts, size_t index,
                              bool* consumed_rest);
  std::vector<Stmt> ParseAssignment(Node s, const std::vector<Node>& stmts, size_t index,
                                    bool* consumed_rest);
  std::vector<Stmt> ParseAugAssign(Node s);
  std::vector<Stmt> ParseExprStmt(Node expr, const std::vector<Node>& stmts, size_t index,
                                  bool* consumed_rest);
  Stmt ParseFor(Node s);
  Stmt ParseWhile(Node s);
  Stmt ParseIf(Node cond, Node consequence, const std::vector<Node>& alternatives,
               size_t alt_index);
  Stmt ParseWith(Node s);
  Stmt ParseSBlock(const FrameSpec& frame, Node body, Node with_node);
  Stmt WrapFrame(const FrameSpec& frame, Stmt body, Node n);
  Stmt ParseAssert(Node s);
  std::vector<Stmt> AssignTo(Node target, Value value, Node value_node);
  Stmt StoreTo(Node subscript, Value value, Node value_node);

  // --- module and functions (parser_module.cpp) ---
  void ParseTopLevel(Node root);
  void ParseClass(Node cls);
  void ParseFunction(Node def, Node decorator);
  void DeclaredShapeVarDTypes(Node body);
  void ParseParams(Node params, FuncCtx& ctx);
  Value ParseQuoted(Node string_node, DataType dtype);
  // `I.module_global_infos({...})` into module_global_infos_ (parser_global_info.cpp).
  void ParseModuleGlobalInfos(Node call);
  // The module's vdevice that TVMScript's `"kind"`, `"kind:index"` or `"kind:index:scope"` text
  // names (index: among the declared vdevices of that target kind); fails at `n` otherwise.
  ir::VDevice LookupVDevice(const std::string& text, Node n);

  // --- state ---
  SourceFilePtr file_;
  std::unique_ptr<Cst> main_cst_;
  Cst* cst_ = nullptr;
  DiagnosticList diags_;
  std::vector<std::unordered_map<std::string_view, Value>> scopes_;
  std::vector<ir::GlobalVar> gvars_;
  std::unordered_map<std::string, size_t> gvar_index_;  // name -> its first entry in gvars_
  void AddGlobal(ir::GlobalVar gv) {
    gvar_index_.emplace(gv->name_hint, gvars_.size());
    gvars_.push_back(std::move(gv));
  }
  const ir::GlobalVar* FindGlobal(std::string_view name) const {
    auto it = gvar_index_.find(std::string(name));
    return it == gvar_index_.end() ? nullptr : &gvars_[it->second];
  }
  std::unordered_map<std::string, Node> gvar_returns_;  // declared return annotations
  std::unordered_map<std::string, Node> gvar_definitions_;  // the decorated definitions
  std::vector<ir::BaseFunc> funcs_;
  std::vector<ir::GlobalVar> parsed_gvars_;  // parallel to funcs_
  std::vector<ParseResult::Recovered> recovered_;  // see ParseResult::recovered
  // Names of the functions declared with check_well_formed=False; every function when the
  // module is (see ParseResult::unchecked).
  std::vector<std::string> unchecked_;
  bool module_unchecked_ = false;
  ir::AttrMap module_attrs_;
  ir::AttrMap module_global_infos_;  // kind -> ArrayObj of GlobalInfo nodes
  bool is_module_ = false;
  std::string class_name_;
  FuncCtx* func_ = nullptr;
  std::vector<BlockFrame*> blocks_;
  std::unordered_map<const tir::VarNode*, std::pair<PrimExpr, PrimExpr>> loop_doms_;
  std::unordered_map<const tir::VarNode*, std::string> env_tags_;
  // In a function signature, undefined names in quoted shape entries create Vars.
  bool in_signature_ = false;
  bool quoted_ = false;  // evaluating a quoted shape entry: undefined names become new Vars
  std::unordered_map<std::string_view, DataType> scalar_param_dtypes_;
  // What `T.<name>` resolved to, by name (views into the source text, which outlives the parse).
  std::unordered_map<std::string_view, Value> t_attrs_;
  // `*seq` arguments spread into one stand-in node per item (copies of the splat's node, so
  // spans point at it), each evaluating to its item: how `T.grid(*A.shape)` reads as Python.
  std::deque<CstNode> splat_nodes_;
  std::unordered_map<Node, Value> splat_values_;
  int depth_ = 0;
  size_t func_scope_ = 0;  // index in scopes_ of the current function's outermost scope
};

// Counts nesting depth of the recursive descent; past the limit the input is rejected.
class DepthGuard {
 public:
  DepthGuard(Parser* p, Node n) : p_(p) {
    if (++p_->depth_ > kMaxDepth) {
      --p_->depth_;
      p_->Fail(n, "expression nested too deeply");
    }
  }
  ~DepthGuard() { --p_->depth_; }
  static constexpr int kMaxDepth = 500;

 private:
  Parser* p_;
};

}  // namespace wb::script::detail
