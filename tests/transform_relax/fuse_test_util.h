// Helpers shared by the fusion tests: parsing TVMScript fixtures, comparing modules structurally
// (and by function names, which structural equality maps rather than compares), and running a
// Relax `main` made of call_tir bindings through the TensorIR reference interpreter, so that a
// module before and after a pass can be compared on the same seeded random inputs.
#pragma once

#include <QTest>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/structural_equal.h"
#include "relax/expr.h"
#include "relax/op/registry.h"
#include "runtime/ndarray.h"
#include "script/tvmscript.h"
#include "tir/interpreter.h"
#include "tir/stmt.h"

namespace fuse_test {

using namespace wb;

inline ir::IRModule Parse(const std::string& text) {
  script::ParseResult parsed = script::Parse(text, "<fixture>");
  if (!parsed.ok()) {
    std::string all;
    for (const auto& d : parsed.diagnostics) all += d.message + "\n";
    qWarning("fixture does not parse:\n%s", all.c_str());
    return {};
  }
  return parsed.module;
}

inline std::set<std::string> FunctionNames(const ir::IRModule& module) {
  std::set<std::string> names;
  for (const auto& gv : module->global_vars) names.insert(gv->name_hint);
  return names;
}

inline std::string JoinNames(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// Empty when equal; otherwise what differs, with the actual module printed.
inline std::string ModuleDifference(const ir::IRModule& actual, const ir::IRModule& expected) {
  if (!actual.defined() || !expected.defined()) return "a module is missing";
  std::set<std::string> a = FunctionNames(actual);
  std::set<std::string> e = FunctionNames(expected);
  if (a != e) {
    return "functions [" + JoinNames(a) + "] vs expected [" + JoinNames(e) + "]\n" +
           script::PrintModule(actual);
  }
  for (const auto& name : a) {
    auto mismatch = ir::FindFirstMismatch(actual->Lookup(name), expected->Lookup(name));
    if (mismatch) {
      return "function " + name + " differs at " + mismatch->lhs_path + ": " + mismatch->reason +
             "\nactual:\n" + script::PrintModule(actual) + "\nexpected:\n" +
             script::PrintModule(expected);
    }
  }
  return "";
}

#define FUSE_COMPARE_MODULES(actual, expected)                           \
  do {                                                                   \
    std::string why = fuse_test::ModuleDifference((actual), (expected)); \
    if (!why.empty()) QFAIL(why.c_str());                                \
  } while (0)

// --- Running main ------------------------------------------------------------------------------

struct Value {
  runtime::NDArray tensor;
  std::vector<Value> fields;  // a tuple when tensor is undefined
};

inline std::vector<int64_t> StaticShape(const relax::Type& type) {
  auto* t = type.as<relax::TensorTypeNode>();
  if (!t || !t->shape) throw std::runtime_error("a tensor without a static shape");
  std::vector<int64_t> shape;
  for (const auto& d : *t->shape) {
    const int64_t* v = tir::AsConstInt(d);
    if (!v) throw std::runtime_error("a symbolic shape");
    shape.push_back(*v);
  }
  return shape;
}

inline Value Allocate(const relax::Type& type) {
  Value v;
  if (auto* tuple = type.as<relax::TupleTypeNode>()) {
    for (const auto& f : tuple->fields) v.fields.push_back(Allocate(f));
    return v;
  }
  auto* t = type.as<relax::TensorTypeNode>();
  v.tensor = runtime::NDArray::Empty(StaticShape(type), tir::ToRuntimeDType(t->dtype));
  return v;
}

inline void Flatten(const Value& v, std::vector<tir::InterpArg>* out) {
  if (v.tensor.defined()) {
    out->push_back(v.tensor);
    return;
  }
  for (const auto& f : v.fields) Flatten(f, out);
}

// Evaluates a Relax function whose bindings are call_tir, calls of module functions, tuples
// and tuple items (what LegalizeOps, FuseOps and FuseTIR produce).
class Evaluator {
 public:
  explicit Evaluator(ir::IRModule module) : module_(std::move(module)) {}

  Value Call(const std::string& name, const std::vector<Value>& args) {
    auto func = ir::Downcast<relax::FunctionNode>(module_->Lookup(name));
    std::map<const ir::Object*, Value> env;
    for (size_t i = 0; i < func->params.size(); ++i) env[func->params[i].get()] = args[i];
    auto* seq = func->body.as<relax::SeqExprNode>();
    for (const auto& block : seq->blocks) {
      for (const auto& b : block->bindings) {
        env[b->var.get()] = Eval(b.as<relax::VarBindingNode>()->value, env);
      }
    }
    return Eval(seq->body, env);
  }

 private:
  Value Eval(const relax::Expr& e, std::map<const ir::Object*, Value>& env) {
    if (auto it = env.find(e.get()); it != env.end()) return it->second;
    if (auto* t = e.as<relax::TupleNode>()) {
      Value v;
      for (const auto& f : t->fields) v.fields.push_back(Eval(f, env));
      return v;
    }
    if (auto* item = e.as<relax::TupleGetItemNode>()) {
      return Eval(item->tuple, env).fields.at(size_t(item->index));
    }
    if (auto* c = e.as<relax::ConstantNode>()) {
      Value v;
      v.tensor = runtime::NDArray::Empty(c->shape, tir::ToRuntimeDType(c->dtype));
      v.tensor.CopyFromBytes(c->data.data(), c->data.size());
      return v;
    }
    auto* call = e.as<relax::CallNode>();
    if (!call) throw std::runtime_error(std::string("cannot evaluate ") + e->type_key());
    if (auto* gv = call->op.as<ir::GlobalVarNode>()) {
      std::vector<Value> args;
      for (const auto& a : call->args) args.push_back(Eval(a, env));
      return Call(gv->name_hint, args);
    }
    auto* op = call->op.as<ir::OpNode>();
    if (!op || op->name != "relax.call_tir") throw std::runtime_error("not a call_tir");
    std::vector<tir::InterpArg> args;
    std::vector<tir::InterpArg> scalars;
    for (const auto& a : call->args[1].as<relax::TupleNode>()->fields) {
      if (auto* pv = a.as<relax::PrimValueNode>()) {
        scalars.push_back(*tir::AsConstInt(pv->value));
        continue;
      }
      Flatten(Eval(a, env), &args);
    }
    Value out = Allocate(call->sinfo_args[0]);
    Flatten(out, &args);
    args.insert(args.end(), scalars.begin(), scalars.end());
    std::string callee = call->args[0].as<ir::GlobalVarNode>()->name_hint;
    auto result = tir::InterpretModule(module_, callee, args);
    if (!result.ok()) {
      std::string all;
      for (const auto& d : result.diagnostics) all += d.message + "\n";
      throw std::runtime_error("interpreting " + callee + ": " + all);
    }
    return out;
  }

  ir::IRModule module_;
};

// Random inputs for `main`'s parameters (seeded), run through both modules; empty when the
// results agree.
inline std::string CompareMain(const ir::IRModule& before, const ir::IRModule& after,
                               uint64_t seed) {
  auto main = ir::Downcast<relax::FunctionNode>(before->Lookup("main"));
  std::vector<Value> inputs;
  for (size_t i = 0; i < main->params.size(); ++i) {
    Value v = Allocate(main->params[i]->struct_info);
    runtime::FillRandom(v.tensor, seed + i);
    inputs.push_back(v);
  }
  try {
    Value a = Evaluator(before).Call("main", inputs);
    Value b = Evaluator(after).Call("main", inputs);
    std::vector<tir::InterpArg> fa, fb;
    Flatten(a, &fa);
    Flatten(b, &fb);
    if (fa.size() != fb.size()) return "different numbers of results";
    for (size_t i = 0; i < fa.size(); ++i) {
      auto cmp = runtime::Compare(*fb[i].array(), *fa[i].array());
      if (!cmp.ok) return "result " + std::to_string(i) + ": " + cmp.message;
    }
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace fuse_test
