#include "schedule/recipe.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <variant>

namespace wb::schedule {

namespace {

using Value = RecipeValue;

// The method table; a function-local static so registrars of any file may run first.
std::map<std::string, RecipeMethod>& Registry() {
  static std::map<std::string, RecipeMethod> table;
  return table;
}

// The methods' descriptions, by name (kept apart from RecipeMethod so that its aggregate
// initialisers in the primitives' files stay as they are).
std::map<std::string, RecipeDoc>& Docs() {
  static std::map<std::string, RecipeDoc> table;
  return table;
}

// --- The methods of schedule.cpp, loop_transformation.cpp, reorder.cpp and for_kind.cpp ---------

using Outputs = std::vector<RecipeRV>;

RecipeMethodRegistrar reg_get_sblock(
    "get_sblock", {{"name", "func_name"}, false, RecipeReturns::kSingle,
                   [](Schedule& sch, RecipeArgs& args) -> Outputs {
                     std::optional<std::string> func;
                     if (args.Has("func_name")) func = args.String("func_name");
                     return {sch.GetSBlock(args.String("name"), func)};
                   }},
    {"lookup",
     "the block named `name`",
     {{"name", RecipeParamKind::kString, "the block's name", ""},
      {"func_name", RecipeParamKind::kString, "the PrimFunc to look in", "None"}}});

// Not a schedule step (TVM does not trace it): which PrimFunc the lookups after it search.
RecipeMethodRegistrar reg_work_on("work_on",
                                  {{"func_name"}, false, RecipeReturns::kNothing,
                                   [](Schedule& sch, RecipeArgs& args) -> Outputs {
                                     sch.WorkOn(args.String("func_name"));
                                     return {};
                                   }},
                                  {"lookup",
                                   "work on the PrimFunc named `func_name` from now on",
                                   {{"func_name", RecipeParamKind::kString,
                                     "the PrimFunc to work on", ""}}});

RecipeMethodRegistrar reg_get_loops("get_loops",
                                    {{"block"}, false, RecipeReturns::kList,
                                     [](Schedule& sch, RecipeArgs& args) -> Outputs {
                                       std::vector<LoopRV> loops =
                                           sch.GetLoops(args.Block("block"));
                                       return Outputs(loops.begin(), loops.end());
                                     }},
                                    {"lookup",
                                     "the loops above the block, outer to inner",
                                     {{"block", RecipeParamKind::kBlock, "the block", ""}}});

RecipeMethodRegistrar reg_split(
    "split", {{"loop", "factors", "preserve_unit_iters", "disable_predication"}, false,
              RecipeReturns::kList, [](Schedule& sch, RecipeArgs& args) -> Outputs {
                const Value& fv = args.Require("factors");
                if (fv.kind != Value::Kind::kList) {
                  throw RecipeArgs::TypeError(fv, "factors", "a list");
                }
                std::vector<std::optional<int64_t>> factors;
                for (const Value& f : fv.list) {
                  if (f.kind == Value::Kind::kNone) {
                    factors.push_back(std::nullopt);
                  } else if (f.kind == Value::Kind::kInt) {
                    // TVM's older API spelled the inferred factor -1.
                    factors.push_back(f.i == -1 ? std::nullopt : std::optional<int64_t>(f.i));
                  } else if (f.kind == Value::Kind::kFloat) {
                    throw RecipeError{"only integer literals are supported here", f.begin, f.end};
                  } else if (args.IsExpr(f)) {
                    factors.push_back(std::nullopt);  // placeholder: see the sampled path below
                  } else {
                    throw RecipeArgs::TypeError(f, "a factor", "an integer or None");
                  }
                }
                // Sampled factors (`v0, v1 = sch.sample_perfect_tile(...)`) go through SplitBy,
                // which records them by name.
                bool sampled = false;
                for (const Value& f : fv.list) sampled |= args.IsExpr(f);
                if (sampled) {
                  std::vector<Schedule::Factor> by;
                  for (size_t k = 0; k < fv.list.size(); ++k) {
                    if (args.IsExpr(fv.list[k])) {
                      by.push_back(args.ExprOf(fv.list[k]));
                    } else if (factors[k]) {
                      by.push_back(*factors[k]);
                    } else {
                      by.push_back(std::monostate{});
                    }
                  }
                  std::vector<LoopRV> loops = sch.SplitBy(
                      args.Loop("loop"), by, args.Bool("preserve_unit_iters", true),
                      args.Bool("disable_predication", false));
                  return Outputs(loops.begin(), loops.end());
                }
                std::vector<LoopRV> loops =
                    sch.Split(args.Loop("loop"), factors, args.Bool("preserve_unit_iters", true),
                              args.Bool("disable_predication", false));
                return Outputs(loops.begin(), loops.end());
              }},
    {"loop transformations",
     "split the loop into nested loops of the given extents",
     {{"loop", RecipeParamKind::kLoop, "the loop to split", ""},
      {"factors", RecipeParamKind::kFactors,
       "the new loops' extents, outer to inner; one None is inferred", ""},
      {"preserve_unit_iters", RecipeParamKind::kBool, "keep iterators of extent 1 in bindings",
       "True"},
      {"disable_predication", RecipeParamKind::kBool,
       "do not guard a non-dividing split with a predicate", "False"}}});

std::vector<LoopRV> LoopVarargs(RecipeArgs& args) {
  std::vector<LoopRV> loops;
  for (const Value& v : args.varargs()) loops.push_back(args.LoopOf(v));
  return loops;
}

// "a block", "a loop" or "a sampled value", for messages.
std::string KindOf(const RecipeRV& rv) {
  if (std::holds_alternative<SBlockRV>(rv)) return "a block";
  if (std::holds_alternative<LoopRV>(rv)) return "a loop";
  return "a sampled value";
}

RecipeMethodRegistrar reg_fuse("fuse", {{"preserve_unit_iters"}, true, RecipeReturns::kSingle,
                                        [](Schedule& sch, RecipeArgs& args) -> Outputs {
                                          return {sch.Fuse(LoopVarargs(args),
                                                           args.Bool("preserve_unit_iters", true))};
                                        }},
                               {"loop transformations",
                                "fuse consecutive loops of one nest into one loop",
                                {{"loops", RecipeParamKind::kLoops,
                                  "the loops to fuse, outer to inner", ""},
                                 {"preserve_unit_iters", RecipeParamKind::kBool,
                                  "keep iterators of extent 1 in bindings", "True"}}});

RecipeMethodRegistrar reg_reorder("reorder", {{}, true, RecipeReturns::kNothing,
                                              [](Schedule& sch, RecipeArgs& args) -> Outputs {
                                                sch.Reorder(LoopVarargs(args));
                                                return {};
                                              }},
                                  {"loop transformations",
                                   "reorder loops of one nest",
                                   {{"loops", RecipeParamKind::kLoops,
                                     "the loops in their new order, outer to inner", ""}}});

RecipeMethod LoopKindMethod(void (Schedule::*apply)(const LoopRV&)) {
  return {{"loop"}, false, RecipeReturns::kNothing,
          [apply](Schedule& sch, RecipeArgs& args) -> Outputs {
            (sch.*apply)(args.Loop("loop"));
            return {};
          }};
}
RecipeDoc LoopKindDoc(const char* summary) {
  return {"loop kinds", summary, {{"loop", RecipeParamKind::kLoop, "the loop", ""}}};
}
RecipeMethodRegistrar reg_parallel("parallel", LoopKindMethod(&Schedule::Parallel),
                                   LoopKindDoc("run the loop's iterations in parallel threads"));
RecipeMethodRegistrar reg_vectorize("vectorize", LoopKindMethod(&Schedule::Vectorize),
                                    LoopKindDoc("turn the loop into vector operations"));
RecipeMethodRegistrar reg_unroll("unroll", LoopKindMethod(&Schedule::Unroll),
                                 LoopKindDoc("unroll the loop"));
RecipeMethodRegistrar reg_bind("bind", {{"loop", "thread_axis"}, false, RecipeReturns::kNothing,
                                        [](Schedule& sch, RecipeArgs& args) -> Outputs {
                                          sch.Bind(args.Loop("loop"), args.String("thread_axis"));
                                          return {};
                                        }},
                               {"GPU",
                                "bind the loop to a GPU thread axis",
                                {{"loop", RecipeParamKind::kLoop, "the loop", ""},
                                 {"thread_axis", RecipeParamKind::kThreadAxis,
                                  "the thread axis, e.g. threadIdx.x", ""}}});

}  // namespace

RecipeMethodRegistrar::RecipeMethodRegistrar(std::string name, RecipeMethod method,
                                             RecipeDoc doc) {
  // The description names the method's parameters in order (the positional ones first for a
  // varargs method), so a parameter added to one and not the other fails at startup.
  std::vector<std::string> documented;
  for (const RecipeParamDoc& p : doc.params) documented.push_back(p.name);
  std::vector<std::string> expected = method.params;
  if (method.varargs && !documented.empty()) expected.insert(expected.begin(), documented[0]);
  if (documented != expected || doc.summary.empty() || doc.group.empty()) {
    std::fprintf(stderr, "recipe method `%s`: its description does not match its parameters\n",
                 name.c_str());
    std::abort();
  }
  if ((method.returns == RecipeReturns::kValue) != static_cast<bool>(method.evaluate) ||
      (method.returns != RecipeReturns::kValue && !method.apply)) {
    std::fprintf(stderr, "recipe method `%s`: a value method needs `evaluate`, others `apply`\n",
                 name.c_str());
    std::abort();
  }
  if (!Registry().emplace(name, std::move(method)).second) {
    std::fprintf(stderr, "recipe method `%s` registered twice\n", name.c_str());
    std::abort();
  }
  Docs().emplace(name, std::move(doc));
}

const RecipeDoc* FindRecipeDoc(const std::string& name) {
  auto it = Docs().find(name);
  return it == Docs().end() ? nullptr : &it->second;
}

const RecipeMethod* FindRecipeMethod(const std::string& name) {
  auto it = Registry().find(name);
  return it == Registry().end() ? nullptr : &it->second;
}

std::vector<std::string> RecipeMethodNames() {
  std::vector<std::string> out;
  for (const auto& [name, method] : Registry()) out.push_back(name);
  return out;
}

RecipeArgs::RecipeArgs(Schedule& sch, std::string method, std::map<std::string, RecipeValue> named,
                       std::vector<RecipeValue> varargs, uint32_t begin, uint32_t end)
    : sch_(sch),
      method_(std::move(method)),
      named_(std::move(named)),
      varargs_(std::move(varargs)),
      begin_(begin),
      end_(end) {}

const RecipeValue* RecipeArgs::Get(const std::string& name) const {
  auto it = named_.find(name);
  return it == named_.end() ? nullptr : &it->second;
}

const RecipeValue& RecipeArgs::Require(const std::string& name) const {
  const RecipeValue* v = Get(name);
  if (!v) {
    throw RecipeError{"sch." + method_ + "() missing required argument '" + name + "'", begin_,
                      end_};
  }
  return *v;
}

bool RecipeArgs::Has(const std::string& name) const {
  const RecipeValue* v = Get(name);
  return v && v->kind != RecipeValue::Kind::kNone;
}

RecipeError RecipeArgs::TypeError(const RecipeValue& v, const std::string& what,
                                  const std::string& want) {
  return {what + " must be " + want, v.begin, v.end};
}

namespace {

// `sch.get(l)` where the handle `l` belongs.
RecipeError NodeForHandle(const RecipeValue& v, const std::string& what) {
  return {"'" + v.s + "' is the IR node that sch.get() reads: pass the " + what + " itself",
          v.begin, v.end};
}

}  // namespace

std::variant<SBlockRV, LoopRV> RecipeArgs::BlockOrLoop(const std::string& name) {
  const RecipeValue& v = Require(name);
  if (v.kind == RecipeValue::Kind::kHandle && std::holds_alternative<LoopRV>(v.rv)) {
    return std::get<LoopRV>(v.rv);
  }
  return BlockOf(v);
}

int64_t RecipeArgs::IntOf(const RecipeValue& v, const std::string& what) {
  if (v.kind != RecipeValue::Kind::kInt) throw TypeError(v, what, "an integer");
  return v.i;
}

int64_t RecipeArgs::Int(const std::string& name) { return IntOf(Require(name), name); }

bool RecipeArgs::IsExpr(const RecipeValue& v) const {
  return v.kind == RecipeValue::Kind::kHandle && std::holds_alternative<Schedule::ExprRV>(v.rv);
}

Schedule::ExprRV RecipeArgs::ExprOf(const RecipeValue& v) {
  if (v.kind != RecipeValue::Kind::kHandle) throw TypeError(v, "value", "a sampled value");
  if (!std::holds_alternative<Schedule::ExprRV>(v.rv)) {
    throw RecipeError{"'" + v.s + "' is not a sampled value", v.begin, v.end};
  }
  return std::get<Schedule::ExprRV>(v.rv);
}

int64_t RecipeArgs::ExprValueOf(const RecipeValue& v) { return sch_.Get(ExprOf(v)); }

int64_t RecipeArgs::Int(const std::string& name, int64_t dflt) {
  const RecipeValue* v = Get(name);
  return v ? IntOf(*v, name) : dflt;
}

bool RecipeArgs::Bool(const std::string& name, bool dflt) {
  const RecipeValue* v = Get(name);
  if (!v) return dflt;
  if (v->kind != RecipeValue::Kind::kBool) throw TypeError(*v, name, "True or False");
  return v->i != 0;
}

std::string RecipeArgs::StringOf(const RecipeValue& v, const std::string& what) {
  if (v.kind != RecipeValue::Kind::kString) throw TypeError(v, what, "a string");
  return v.s;
}

std::string RecipeArgs::String(const std::string& name) { return StringOf(Require(name), name); }

tir::IndexMap RecipeArgs::IndexMapOf(const RecipeValue& v, const std::string& what, ir::DataType index_dtype) {
  if (v.kind != RecipeValue::Kind::kLambda) throw TypeError(v, what, "a lambda");
  std::string error;
  size_t offset = 0;
  tir::IndexMap map = tir::ParseIndexMapLambda(v.s, index_dtype, &error, &offset);
  if (!map.defined()) {
    uint32_t at = v.begin + static_cast<uint32_t>(offset);
    throw RecipeError{error, at, std::min(at + 1, v.end)};
  }
  return map;
}

ir::DataType RecipeArgs::LambdaDType(const SBlockRV& block) {
  tir::SBlock b = sch_.Get(block);
  return b->iter_vars.empty() ? ir::DataType::Int(64) : b->iter_vars[0]->var->dtype;
}

std::vector<SBlockRV> RecipeArgs::BlockList(const std::string& name) {
  const RecipeValue* v = Get(name);
  if (!v || v->kind == RecipeValue::Kind::kNone) return {};
  if (v->kind != RecipeValue::Kind::kList) throw TypeError(*v, name, "a list of blocks");
  std::vector<SBlockRV> out;
  for (const RecipeValue& e : v->list) out.push_back(BlockOf(e));
  return out;
}

SBlockRV RecipeArgs::BlockOf(const RecipeValue& v) {
  // As in TVM's Python API, a block may be given by name.
  if (v.kind == RecipeValue::Kind::kString) return sch_.GetSBlock(v.s);
  if (v.kind == RecipeValue::Kind::kNode) throw NodeForHandle(v, "block");
  if (v.kind != RecipeValue::Kind::kHandle) throw TypeError(v, "block", "a block or a block name");
  if (!std::holds_alternative<SBlockRV>(v.rv)) {
    throw RecipeError{"'" + v.s + "' is " + KindOf(v.rv) + ", not a block", v.begin, v.end};
  }
  return std::get<SBlockRV>(v.rv);
}

LoopRV RecipeArgs::LoopOf(const RecipeValue& v) {
  if (v.kind == RecipeValue::Kind::kString) {
    // Blocks may be named by a string, loops may not: say what to write instead.
    throw RecipeError{"a loop is needed here, not the string \"" + v.s + "\" (loops come from sch.get_loops(block), e.g. sch.get_loops(\"" + v.s + "\")[0])", v.begin, v.end};
  }
  if (v.kind == RecipeValue::Kind::kNode) throw NodeForHandle(v, "loop");
  if (v.kind != RecipeValue::Kind::kHandle) throw TypeError(v, "this argument", "a loop");
  if (!std::holds_alternative<LoopRV>(v.rv)) {
    throw RecipeError{"'" + v.s + "' is " + KindOf(v.rv) + ", not a loop", v.begin, v.end};
  }
  return std::get<LoopRV>(v.rv);
}

}  // namespace wb::schedule
