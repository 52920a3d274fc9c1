#include "schedule/trace.h"

#include <map>
#include <stdexcept>

namespace wb::schedule {

namespace {

// RV names are keyed by (kind, id) so that block and loop ids never collide.
using NameTable = std::map<std::pair<int, int64_t>, std::string>;

std::pair<int, int64_t> Key(const TraceValue& v) { return {static_cast<int>(v.kind), v.i}; }

std::string PrintValue(const TraceValue& v, const NameTable& names) {
  switch (v.kind) {
    case TraceValue::Kind::kNone:
      return "None";
    case TraceValue::Kind::kInt:
      return std::to_string(v.i);
    case TraceValue::Kind::kBool:
      return v.i ? "True" : "False";
    case TraceValue::Kind::kString:
      return "\"" + v.s + "\"";
    case TraceValue::Kind::kRaw:
      return v.s;
    case TraceValue::Kind::kBlockRV:
    case TraceValue::Kind::kLoopRV:
    case TraceValue::Kind::kExprRV: {
      auto it = names.find(Key(v));
      if (it == names.end()) throw std::logic_error("trace uses an RV before it is defined");
      return it->second;
    }
    case TraceValue::Kind::kList:
    case TraceValue::Kind::kTuple: {
      bool tuple = v.kind == TraceValue::Kind::kTuple;
      std::string out = tuple ? "(" : "[";
      for (size_t i = 0; i < v.list.size(); ++i) {
        if (i) out += ", ";
        out += PrintValue(v.list[i], names);
      }
      if (tuple && v.list.size() == 1) out += ",";
      return out + (tuple ? ")" : "]");
    }
  }
  return "";
}

}  // namespace

std::string Trace::AsPython() const {
  NameTable names;
  int counter = 0;
  std::string out;
  for (const Instruction& inst : insts_) {
    std::string call = "sch." + inst.method + "(";
    for (size_t i = 0; i < inst.args.size(); ++i) {
      if (i) call += ", ";
      if (!inst.args[i].key.empty()) call += inst.args[i].key + "=";
      call += PrintValue(inst.args[i].value, names);
    }
    call += ")";
    std::string lhs;
    for (size_t i = 0; i < inst.outputs.size(); ++i) {
      const TraceValue& o = inst.outputs[i];
      if (o.kind == TraceValue::Kind::kNone) {  // an output TVM leaves null prints `_`
        lhs += i ? ", _" : "_";
        continue;
      }
      const char* prefix = o.kind == TraceValue::Kind::kBlockRV  ? "b"
                           : o.kind == TraceValue::Kind::kLoopRV ? "l"
                                                                 : "v";
      std::string name = prefix + std::to_string(counter++);
      names[Key(o)] = name;
      if (i) lhs += ", ";
      lhs += name;
    }
    if (!inst.outputs.empty()) {
      if (inst.list_output && inst.outputs.size() == 1) lhs += ",";
      out += lhs + " = ";
    }
    out += call + "\n";
  }
  return out;
}

}  // namespace wb::schedule
