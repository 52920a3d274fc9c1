#include "runtime/vm/executable.h"

#include <sstream>

namespace wb::runtime::vm {

namespace {

std::string JoinDims(const std::vector<int64_t>& dims) {
  std::string out = "(";
  for (size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + std::to_string(dims[i]);
  return out + (dims.size() == 1 ? ",)" : ")");
}

}  // namespace

std::string Value::Describe() const {
  switch (kind) {
    case Kind::kNull: return "null";
    case Kind::kTensor: return "tensor " + JoinDims(tensor.shape()) + " " + DTypeToString(tensor.dtype());
    case Kind::kTuple: return "tuple of " + std::to_string(fields.size());
    case Kind::kShape: return "shape " + JoinDims(shape);
    case Kind::kInt: return "int " + std::to_string(int_value);
    case Kind::kFloat: return "float " + std::to_string(float_value);
    case Kind::kString: return "string \"" + string_value + "\"";
    case Kind::kStorage: return "storage of " + std::to_string(tensor.defined() ? tensor.NumElements() : 0) + " bytes";
    case Kind::kShapeHeap: return "shape heap of " + std::to_string(heap ? heap->size() : 0);
  }
  return "?";
}

int64_t Executable::FindFunction(const std::string& name) const {
  for (size_t i = 0; i < func_table.size(); ++i) {
    if (func_table[i].name == name) return static_cast<int64_t>(i);
  }
  return -1;
}

int64_t Executable::GetOrAddPackedFunc(const std::string& name) {
  int64_t i = FindFunction(name);
  if (i >= 0) return i;
  FuncEntry e;
  e.kind = FuncEntry::Kind::kPackedFunc;
  e.name = name;
  func_table.push_back(std::move(e));
  return static_cast<int64_t>(func_table.size()) - 1;
}

std::string Executable::AsText() const {
  std::ostringstream os;
  auto arg_text = [&](const InstrArg& a) -> std::string {
    switch (a.kind) {
      case InstrArg::Kind::kRegister: return "%" + std::to_string(a.value);
      case InstrArg::Kind::kImmediate: return "i" + std::to_string(a.value);
      case InstrArg::Kind::kConstIdx: {
        std::string d = a.value >= 0 && a.value < static_cast<int64_t>(constants.size())
                            ? constants[a.value].Describe() : "?";
        return "c[" + std::to_string(a.value) + "](" + d + ")";
      }
      case InstrArg::Kind::kFuncIdx:
        return "f[" + (a.value >= 0 && a.value < static_cast<int64_t>(func_table.size())
                           ? func_table[a.value].name : std::string("?")) + "]";
    }
    return "?";
  };
  for (const auto& f : func_table) {
    if (f.kind != FuncEntry::Kind::kVMFunc) continue;
    os << "@" << f.name << "(";
    for (size_t i = 0; i < f.param_names.size(); ++i) os << (i ? ", " : "") << f.param_names[i];
    os << "):  # num_args=" << f.num_args << " registers=" << f.register_file_size << "\n";
    for (int64_t pc = f.start_instr; pc < f.end_instr; ++pc) {
      const Instruction& in = instructions[pc];
      os << "  " << (pc - f.start_instr) << ": ";
      switch (in.op) {
        case Instruction::Op::kCall: {
          os << "call " << func_table[in.func_idx].name << " in: ";
          for (size_t i = 0; i < in.args.size(); ++i) os << (i ? ", " : "") << arg_text(in.args[i]);
          os << " dst: " << (in.dst == kVoidRegister ? std::string("void") : "%" + std::to_string(in.dst));
          break;
        }
        case Instruction::Op::kRet: os << "ret %" << in.reg; break;
        case Instruction::Op::kGoto: os << "goto " << in.offset; break;
        case Instruction::Op::kIf: os << "if %" << in.reg << ", " << in.offset; break;
      }
      os << "\n";
    }
  }
  return os.str();
}

}  // namespace wb::runtime::vm
