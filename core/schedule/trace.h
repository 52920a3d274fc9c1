// The trace of a schedule: every primitive that succeeded, in order, printable as the Python
// TVM prints (`Trace::AsPython`) so that a recipe can be read, stored and replayed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace wb::schedule {

// An argument value as a trace holds it.
struct TraceValue {
  // kTuple: printed `(a, b)` (reindex's buffer=("read", 0)); kExprRV: a sampled value (printed
  // `v3`); kRaw: text printed as is (floats, index maps).
  enum class Kind {
    kNone,
    kInt,
    kBool,
    kString,
    kBlockRV,
    kLoopRV,
    kList,
    kTuple,
    kExprRV,
    kRaw,
  } kind = Kind::kNone;
  int64_t i = 0;  // kInt, kBool (0/1), RV id for kBlockRV / kLoopRV / kExprRV
  std::string s;  // kString, kRaw
  std::vector<TraceValue> list;

  static TraceValue None() { return {}; }
  static TraceValue Int(int64_t v) { return {Kind::kInt, v, {}, {}}; }
  static TraceValue Bool(bool v) { return {Kind::kBool, v ? 1 : 0, {}, {}}; }
  static TraceValue String(std::string v) { return {Kind::kString, 0, std::move(v), {}}; }
  static TraceValue Block(int id) { return {Kind::kBlockRV, id, {}, {}}; }
  static TraceValue Loop(int id) { return {Kind::kLoopRV, id, {}, {}}; }
  static TraceValue List(std::vector<TraceValue> v) { return {Kind::kList, 0, {}, std::move(v)}; }
  static TraceValue Tuple(std::vector<TraceValue> v) {
    return {Kind::kTuple, 0, {}, std::move(v)};
  }
  static TraceValue Expr(int id) { return {Kind::kExprRV, id, {}, {}}; }
  static TraceValue Raw(std::string text) { return {Kind::kRaw, 0, std::move(text), {}}; }
};

struct TraceArg {
  std::string key;  // empty: printed positionally
  TraceValue value;
};

struct Instruction {
  std::string method;  // the Python method: "get_sblock", "split", ...
  std::vector<TraceArg> args;
  std::vector<TraceValue> outputs;  // RVs the call produced
  // True when the call returns a list (`l1, = ...` for one element), false for a single RV.
  bool list_output = false;
};

class Trace {
 public:
  void Append(Instruction inst) { insts_.push_back(std::move(inst)); }
  const std::vector<Instruction>& instructions() const { return insts_; }
  // The instruction appended last (a primitive built on another one rewrites its arguments).
  Instruction& Last() { return insts_.back(); }
  // One line per instruction, `l1, l2 = sch.split(loop=l0, ...)`; RVs are named in order of
  // appearance with one counter for all kinds (b0, l1, l2, ...).
  std::string AsPython() const;

 private:
  std::vector<Instruction> insts_;
};

}  // namespace wb::schedule
