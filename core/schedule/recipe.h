// Schedule recipes: the Python that `Trace::AsPython` prints, or that a user writes against
// TVM's API, read and applied onto a Schedule. The reader (recipe_reader.cpp) parses with
// core/script's lexer and CST and evaluates a subset of Python: assignments (names, `_`, tuple
// and starred unpacking) of expressions built from calls on `sch` (nested ones too), None, True,
// False, numbers, strings, lists, tuples and dicts, indexing and slicing, list comprehensions, integer
// arithmetic, comparisons, `and`/`or`/`not`, `len`, the IR read with `sch.get` (a loop's
// `.extent`, `.min`, `.loop_var.name`, a block's `.name_hint`, `.same_as(...)`, `==` between
// nodes, a sampled value's integer), lambdas (index maps) and `T.`/`tvm.tirx.` constant
// constructors; `assert` statements, checked where they stand; `@T.prim_func` definitions
// (TVMScript, read by core/script) and `tvm.tirx.TensorIntrin.register(name, desc, impl)` of
// them (schedule/tensor_intrin.h); a trace's `def apply_trace(sch): ...` is read as its body.
// Anything else (a `for` loop, an import) is an error with its span, never skipped.
//
// Methods are found in a table from method name to RecipeMethod (parameter names in Python
// order, what the method returns, and a handler that reads its arguments and calls the
// Schedule). A primitive's own file registers its method with a static RecipeMethodRegistrar
// (wb_core is linked whole, so the registrar always runs):
//
//   RecipeMethodRegistrar reg_compute_inline(
//       "compute_inline", {{"block"}, false, RecipeReturns::kNothing,
//                          [](Schedule& sch, RecipeArgs& args) -> std::vector<RecipeRV> {
//                            sch.ComputeInline(args.Block("block"));
//                            return {};
//                          }},
//       {"compute location", "inline the block into its consumers",
//        {{"block", RecipeParamKind::kBlock, "the block to inline", ""}}});
//
// RecipeArgs converts and checks arguments (a block may be given as a handle or by name, as in
// TVM's Python API); a wrong argument is a RecipeError at that argument's span.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "schedule/schedule.h"
#include "support/diagnostic.h"

namespace wb::schedule {

// Applies `text` statement by statement. Stops at the first failing statement (a parse error or a
// primitive that does not apply) and reports it with that statement's span; the statements
// before it stay applied.
DiagnosticList ApplyRecipe(Schedule& sch, std::string_view text, std::string path = "<recipe>");

// A handle bound to a recipe name.
using RecipeRV = std::variant<SBlockRV, LoopRV, Schedule::ExprRV>;

// A recipe expression's value, before the parameter receiving it checks it.
struct RecipeValue {
  // kHandle: a block, loop or sampled value (`b0`, `loops[-1]`, `sch.get_sblock("B")`);
  // kList: a list or tuple; kFloat: `0.5`; kLambda: `lambda i, j: (j, i)`, its text in `s`;
  // kNode: an IR node read with `sch.get(b)` (a tir::SBlock, tir::For or tir::Var) in `node`;
  // kFunc: a `@T.prim_func` the recipe defines, the tir::PrimFunc in `node`; kDict: a dict
  // literal (`{"k": 1}`, as traces print annotation values), keys and values alternating in
  // `list`.
  enum class Kind {
    kNone, kBool, kInt, kString, kHandle, kList, kFloat, kLambda, kNode, kFunc, kDict
  } kind = Kind::kNone;
  double f = 0;  // kFloat
  int64_t i = 0;  // kInt, kBool (0/1)
  std::string s;  // kString contents; kHandle: the expression's text, for messages
  RecipeRV rv;    // kHandle
  ir::ObjectRef node;  // kNode, kFunc
  std::string dtype;  // kInt, kFloat made by a constructor (`T.int64(4)`); empty: a literal
  std::vector<RecipeValue> list;
  uint32_t begin = 0;  // span in the recipe text
  uint32_t end = 0;
};

// A recipe that cannot be applied, at a span of its text.
struct RecipeError {
  std::string message;
  uint32_t begin;
  uint32_t end;
};

// The arguments of one call, matched to the method's parameters Python-style.
class RecipeArgs {
 public:
  RecipeArgs(Schedule& sch, std::string method, std::map<std::string, RecipeValue> named,
             std::vector<RecipeValue> varargs, uint32_t begin, uint32_t end);

  // The argument, or null when it was not given.
  const RecipeValue* Get(const std::string& name) const;
  // The argument; a RecipeError naming it when it was not given.
  const RecipeValue& Require(const std::string& name) const;
  // Given and not None.
  bool Has(const std::string& name) const;
  const std::vector<RecipeValue>& varargs() const { return varargs_; }

  SBlockRV Block(const std::string& name) { return BlockOf(Require(name)); }
  LoopRV Loop(const std::string& name) { return LoopOf(Require(name)); }
  std::variant<SBlockRV, LoopRV> BlockOrLoop(const std::string& name);
  int64_t Int(const std::string& name);
  int64_t Int(const std::string& name, int64_t dflt);
  bool Bool(const std::string& name, bool dflt);
  std::string String(const std::string& name);
  // A list of blocks; not given or None: empty.
  std::vector<SBlockRV> BlockList(const std::string& name);

  SBlockRV BlockOf(const RecipeValue& v);
  LoopRV LoopOf(const RecipeValue& v);
  int64_t IntOf(const RecipeValue& v, const std::string& what);
  // The value of a sampled value (an ExprRV) handle.
  int64_t ExprValueOf(const RecipeValue& v);
  // Whether `v` is a sampled value handle.
  bool IsExpr(const RecipeValue& v) const;
  Schedule::ExprRV ExprOf(const RecipeValue& v);
  std::string StringOf(const RecipeValue& v, const std::string& what);
  // A lambda argument read as an index map over `index_dtype`; a parse error at its column.
  tir::IndexMap IndexMapOf(const RecipeValue& v, const std::string& what, ir::DataType index_dtype);
  // The dtype TVM's Python front end gives an index-map lambda's variables for `block`: its
  // first iter var's (int64 without one).
  ir::DataType LambdaDType(const SBlockRV& block);
  // "`what` must be `want`" at the value's span.
  static RecipeError TypeError(const RecipeValue& v, const std::string& what,
                               const std::string& want);

 private:
  Schedule& sch_;
  std::string method_;
  std::map<std::string, RecipeValue> named_;
  std::vector<RecipeValue> varargs_;
  uint32_t begin_;
  uint32_t end_;
};

enum class RecipeReturns {
  kNothing,  // `sch.parallel(l1)`: assigning the result is an error
  kSingle,   // `b1 = sch.get_sblock("B")`
  kList,     // `l1, l2 = sch.get_loops(b0)`, `b1, = sch.get_producers(b0)`
  kValue,    // `sch.can_decompose_padding(b0, l1)`: a plain value (RecipeMethod::evaluate)
};

// What a parameter takes, for tools that build calls rather than read them (the workbench's
// argument form chooses its widget and its choices from this).
enum class RecipeParamKind {
  kLoop,         // a loop of the nest of the block the call is about
  kConsumerLoop, // a loop of a nest of the block's consumers (compute_at's target)
  kProducerLoop, // a loop of a nest of the block's producers (reverse_compute_at's target)
  kLoops,        // several loops of one nest (fuse, reorder: the positional arguments)
  kBlock,
  kBlockOrLoop,
  kBlockList,    // blocks, e.g. cache_read's consumer_blocks
  kReadBuffer,   // an index into the block's reads
  kWriteBuffer,  // an index into the block's writes
  kBuffer,       // ("read" | "write", index) of the block
  kInt,
  kIntList,
  kFloatList,
  kFactors,      // split factors: integers and at most one None
  kThreadAxis,   // "threadIdx.x", ...
  kStorageScope, // "global", "shared", "local", ...
  kAnnKey,
  kAnnValue,     // an annotation value: number, string, boolean or list
  kIndexMap,     // lambda text, e.g. `lambda i, j: (j, i)`
  kBool,
  kString,       // a name, e.g. get_sblock's
  kTensorIntrin, // a registered tensor intrinsic's name (schedule/tensor_intrin.h)
};

// One parameter as tools present it.
struct RecipeParamDoc {
  std::string name;  // as in RecipeMethod::params; for a varargs method, the first entry is
                     // the positional arguments' (e.g. "loops")
  RecipeParamKind kind;
  std::string doc;   // one line
  std::string dflt;  // Python text of the default; empty: required
};

// A method as tools present it: its group ("loop transformations", "compute location", ...),
// a one-line summary, and every parameter.
struct RecipeDoc {
  std::string group;
  std::string summary;
  std::vector<RecipeParamDoc> params;
};

struct RecipeMethod {
  // Parameter names in Python order; positional arguments fill them in order.
  std::vector<std::string> params;
  // Positional arguments are collected into RecipeArgs::varargs (fuse, reorder); `params` are
  // then keyword-only.
  bool varargs = false;
  RecipeReturns returns = RecipeReturns::kNothing;
  // Applies the call; returns the handles to bind (one for kSingle). Unused for kValue.
  std::function<std::vector<RecipeRV>(Schedule&, RecipeArgs&)> apply;
  // kValue: the call's value (a query; it changes neither the module nor the trace).
  std::function<RecipeValue(Schedule&, RecipeArgs&)> evaluate = {};
};

// Registers `method` under `name` with its description (a later registration of the same name,
// or a description whose parameters are not the method's, is a programming error and aborts at
// startup: the description cannot drift from what the reader accepts).
struct RecipeMethodRegistrar {
  RecipeMethodRegistrar(std::string name, RecipeMethod method, RecipeDoc doc);
};

// The registered method, or null.
const RecipeMethod* FindRecipeMethod(const std::string& name);
// The description the method was registered with, or null.
const RecipeDoc* FindRecipeDoc(const std::string& name);
// Every registered method's name, sorted.
std::vector<std::string> RecipeMethodNames();

}  // namespace wb::schedule
