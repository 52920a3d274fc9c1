#include "meta_schedule/replay.h"

#include <cstdlib>
#include <map>
#include <optional>

#include "schedule/recipe.h"

namespace wb::meta_schedule {

namespace {

using schedule::Instruction;
using schedule::RecipeRV;
using schedule::RecipeValue;
using schedule::TraceValue;

// A trace's handles, by kind and id, bound to the replaying schedule's.
using Handles = std::map<std::pair<TraceValue::Kind, int64_t>, RecipeRV>;

// `("write", 0)`: the pair a buffer argument prints as raw text.
std::optional<RecipeValue> BufferPair(const std::string& text) {
  const std::string read = "(\"read\", ", write = "(\"write\", ";
  const std::string* head = text.rfind(read, 0) == 0 ? &read : text.rfind(write, 0) == 0 ? &write : nullptr;
  if (!head || text.back() != ')') return std::nullopt;
  const std::string digits = text.substr(head->size(), text.size() - head->size() - 1);
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  RecipeValue pair;
  pair.kind = RecipeValue::Kind::kList;
  RecipeValue which;
  which.kind = RecipeValue::Kind::kString;
  which.s = head == &read ? "read" : "write";
  RecipeValue index;
  index.kind = RecipeValue::Kind::kInt;
  index.i = std::atoll(digits.c_str());
  pair.list = {which, index};
  return pair;
}

// The recipe value of a trace value; nullopt where it is not converted.
std::optional<RecipeValue> Convert(const TraceValue& v, const Handles& handles) {
  RecipeValue out;
  switch (v.kind) {
    case TraceValue::Kind::kNone:
      return out;
    case TraceValue::Kind::kInt:
      out.kind = RecipeValue::Kind::kInt;
      out.i = v.i;
      return out;
    case TraceValue::Kind::kBool:
      out.kind = RecipeValue::Kind::kBool;
      out.i = v.i;
      return out;
    case TraceValue::Kind::kString:
      out.kind = RecipeValue::Kind::kString;
      out.s = v.s;
      return out;
    case TraceValue::Kind::kBlockRV:
    case TraceValue::Kind::kLoopRV:
    case TraceValue::Kind::kExprRV: {
      auto it = handles.find({v.kind, v.i});
      if (it == handles.end()) return std::nullopt;
      out.kind = RecipeValue::Kind::kHandle;
      out.rv = it->second;
      return out;
    }
    case TraceValue::Kind::kList:
    case TraceValue::Kind::kTuple:
      out.kind = RecipeValue::Kind::kList;
      for (const TraceValue& item : v.list) {
        std::optional<RecipeValue> c = Convert(item, handles);
        if (!c) return std::nullopt;
        out.list.push_back(std::move(*c));
      }
      return out;
    case TraceValue::Kind::kRaw: {
      if (v.s.rfind("lambda", 0) == 0) {
        out.kind = RecipeValue::Kind::kLambda;
        out.s = v.s;
        return out;
      }
      if (std::optional<RecipeValue> pair = BufferPair(v.s)) return pair;
      char* end = nullptr;
      const double f = std::strtod(v.s.c_str(), &end);
      if (!v.s.empty() && end == v.s.c_str() + v.s.size()) {
        out.kind = RecipeValue::Kind::kFloat;
        out.f = f;
        return out;
      }
      return std::nullopt;
    }
  }
  return std::nullopt;
}

// Whether every raw text in `v` converts.
bool RawConverts(const TraceValue& v) {
  if (v.kind == TraceValue::Kind::kRaw) return Convert(v, {}).has_value();
  for (const TraceValue& item : v.list) {
    if (!RawConverts(item)) return false;
  }
  return true;
}

}  // namespace

ReplayOutcome ReplayTrace(schedule::Schedule& sch, const schedule::Trace& trace, std::string* error) {
  // Every method known and every raw value read first: what is not is the text reader's.
  for (const Instruction& inst : trace.instructions()) {
    if (!schedule::FindRecipeMethod(inst.method)) return ReplayOutcome::kUnsupported;
    for (const schedule::TraceArg& a : inst.args) {
      if (!RawConverts(a.value)) return ReplayOutcome::kUnsupported;
    }
  }
  Handles handles;
  for (const Instruction& inst : trace.instructions()) {
    const schedule::RecipeMethod* method = schedule::FindRecipeMethod(inst.method);
    std::map<std::string, RecipeValue> named;
    std::vector<RecipeValue> varargs;
    size_t positional = 0;
    for (const schedule::TraceArg& a : inst.args) {
      std::optional<RecipeValue> v = Convert(a.value, handles);
      if (!v) {
        *error = "sch." + inst.method + "(): argument '" + a.key + "' is a handle no earlier step made";
        return ReplayOutcome::kFailed;
      }
      if (!a.key.empty()) {
        named[a.key] = std::move(*v);
      } else if (method->varargs) {
        varargs.push_back(std::move(*v));
      } else if (positional < method->params.size()) {
        named[method->params[positional++]] = std::move(*v);
      } else {
        *error = "sch." + inst.method + "() takes at most " + std::to_string(method->params.size()) + " arguments";
        return ReplayOutcome::kFailed;
      }
    }
    try {
      schedule::RecipeArgs args(sch, inst.method, std::move(named), std::move(varargs), 0, 0);
      if (method->returns == schedule::RecipeReturns::kValue) {
        method->evaluate(sch, args);
      } else {
        std::vector<RecipeRV> outputs = method->apply(sch, args);
        if (method->returns == schedule::RecipeReturns::kList && !inst.outputs.empty() &&
            outputs.size() != inst.outputs.size()) {
          *error = "sch." + inst.method + "() returned " + std::to_string(outputs.size()) + " values, but the trace has " +
                   std::to_string(inst.outputs.size());
          return ReplayOutcome::kFailed;
        }
        for (size_t k = 0; k < inst.outputs.size() && k < outputs.size(); ++k) {
          const TraceValue& o = inst.outputs[k];
          if (o.kind != TraceValue::Kind::kNone) handles[{o.kind, o.i}] = outputs[k];
        }
      }
    } catch (const schedule::RecipeError& e) {
      *error = "sch." + inst.method + "(): " + e.message;
      return ReplayOutcome::kFailed;
    } catch (const std::exception& e) {
      *error = "sch." + inst.method + "(): " + e.what();
      return ReplayOutcome::kFailed;
    }
  }
  return ReplayOutcome::kApplied;
}

}  // namespace wb::meta_schedule
