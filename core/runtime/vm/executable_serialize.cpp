// The binary form of an Executable. Layout (little-endian, as the hosts we build for):
//
//   header   8 bytes magic "WBVMEXE\0", u32 format version, u64 payload bytes, u64 FNV-1a
//            hash of the payload
//   payload  u64 count, constants (Value)
//            u64 count, function table entries: u8 kind, str name, i64 start_instr,
//            end_instr, num_args, register_file_size, u64 count, str param names
//            u64 count, instructions: u8 op, i64 dst, func_idx, reg, offset, u64 count,
//            args (u8 kind, i64 value)
//   Value    u8 kind, then: tensor u64 bytes + .npy image; tuple u64 count + Values; shape
//            u64 count + i64 dims; int i64; float f64; string str; null nothing
//   str      u64 bytes + the bytes
//
// A new field or instruction kind bumps kFormatVersion; a reader refuses other versions rather
// than guessing.
#include <cstring>

#include "runtime/vm/executable.h"
#include "runtime/vm/vm.h"

namespace wb::runtime::vm {

namespace {

// The enums' values are the format: reordering them needs a new kFormatVersion.
static_assert(static_cast<int>(Value::Kind::kString) == 6 && static_cast<int>(Value::Kind::kStorage) == 8);
static_assert(static_cast<int>(Instruction::Op::kIf) == 3 && static_cast<int>(InstrArg::Kind::kFuncIdx) == 3);
static_assert(static_cast<int>(FuncEntry::Kind::kVMFunc) == 1);

constexpr char kMagic[8] = {'W', 'B', 'V', 'M', 'E', 'X', 'E', '\0'};
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kHeaderBytes = 8 + 4 + 8 + 8;

uint64_t Fnv1a(std::string_view bytes) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

class Writer {
 public:
  template <typename T>
  void Pod(T v) {
    out_.append(reinterpret_cast<const char*>(&v), sizeof(T));
  }
  void U8(uint8_t v) { Pod(v); }
  void I64(int64_t v) { Pod(v); }
  void U64(uint64_t v) { Pod(v); }
  void Str(const std::string& s) {
    U64(s.size());
    out_ += s;
  }
  void Val(const Value& v) {
    U8(static_cast<uint8_t>(v.kind));
    switch (v.kind) {
      case Value::Kind::kNull: break;
      case Value::Kind::kTensor: Str(SerializeNpy(v.tensor)); break;
      case Value::Kind::kTuple:
        U64(v.fields.size());
        for (const auto& f : v.fields) Val(f);
        break;
      case Value::Kind::kShape:
        U64(v.shape.size());
        for (int64_t d : v.shape) I64(d);
        break;
      case Value::Kind::kInt: I64(v.int_value); break;
      case Value::Kind::kFloat: Pod(v.float_value); break;
      case Value::Kind::kString: Str(v.string_value); break;
      case Value::Kind::kShapeHeap:
      case Value::Kind::kStorage: throw VMError("a constant of the executable cannot be saved: " + v.Describe());
    }
  }
  std::string& bytes() { return out_; }

 private:
  std::string out_;
};

// Every read is bounds-checked: a short or corrupt file is an error naming what was being read
// and where, never a read past the end.
class Reader {
 public:
  explicit Reader(std::string_view bytes, size_t base) : in_(bytes), base_(base) {}

  template <typename T>
  T Pod(const char* what) {
    Need(sizeof(T), what);
    T v;
    std::memcpy(&v, in_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  uint8_t U8(const char* what) { return Pod<uint8_t>(what); }
  int64_t I64(const char* what) { return Pod<int64_t>(what); }
  // A count of items of at least `min_item_bytes` each: more than the rest could hold is corrupt.
  uint64_t Count(const char* what, size_t min_item_bytes) {
    uint64_t n = Pod<uint64_t>(what);
    if (min_item_bytes && n > (in_.size() - pos_) / min_item_bytes) {
      throw VMError("corrupt executable: " + std::string(what) + " says " + std::to_string(n) + " at byte " +
                    std::to_string(base_ + pos_ - 8) + ", more than the remaining " +
                    std::to_string(in_.size() - pos_) + " bytes hold");
    }
    return n;
  }
  std::string Str(const char* what) {
    uint64_t n = Count(what, 1);
    std::string s(in_.substr(pos_, n));
    pos_ += n;
    return s;
  }
  Value Val(int depth = 0) {
    if (depth > 64) throw VMError("corrupt executable: constants nested deeper than 64");
    Value v;
    uint8_t kind = U8("a constant's kind");
    switch (kind) {
      case static_cast<uint8_t>(Value::Kind::kNull): break;
      case static_cast<uint8_t>(Value::Kind::kTensor): {
        size_t at = base_ + pos_;
        std::string npy = Str("a tensor constant");
        std::string why;
        NDArray a = ParseNpy(npy, &why);
        if (!a.defined()) throw VMError("corrupt executable: the tensor constant at byte " + std::to_string(at) + ": " + why);
        v = Value::Tensor(a);
        break;
      }
      case static_cast<uint8_t>(Value::Kind::kTuple): {
        uint64_t n = Count("a tuple constant's size", 1);
        std::vector<Value> fields;
        for (uint64_t i = 0; i < n; ++i) fields.push_back(Val(depth + 1));
        v = Value::Tuple(std::move(fields));
        break;
      }
      case static_cast<uint8_t>(Value::Kind::kShape): {
        uint64_t n = Count("a shape constant's rank", 8);
        std::vector<int64_t> dims;
        for (uint64_t i = 0; i < n; ++i) dims.push_back(I64("a shape constant's dim"));
        v = Value::Shape(std::move(dims));
        break;
      }
      case static_cast<uint8_t>(Value::Kind::kInt): v = Value::Int(I64("an integer constant")); break;
      case static_cast<uint8_t>(Value::Kind::kFloat): v = Value::Float(Pod<double>("a float constant")); break;
      case static_cast<uint8_t>(Value::Kind::kString): v = Value::String(Str("a string constant")); break;
      default:
        throw VMError("corrupt executable: unknown constant kind " + std::to_string(kind) + " at byte " +
                      std::to_string(base_ + pos_ - 1));
    }
    return v;
  }
  bool AtEnd() const { return pos_ == in_.size(); }
  size_t position() const { return base_ + pos_; }

 private:
  void Need(size_t n, const char* what) {
    if (in_.size() - pos_ < n) {
      throw VMError("truncated executable: " + std::string(what) + " needs " + std::to_string(n) + " bytes at byte " +
                    std::to_string(base_ + pos_) + ", but the data ends at byte " + std::to_string(base_ + in_.size()));
    }
  }
  std::string_view in_;
  size_t base_;
  size_t pos_ = 0;
};

}  // namespace

std::string Executable::SaveToBinary() const {
  Writer w;
  w.U64(constants.size());
  for (const auto& c : constants) w.Val(c);
  w.U64(func_table.size());
  for (const auto& f : func_table) {
    w.U8(static_cast<uint8_t>(f.kind));
    w.Str(f.name);
    w.I64(f.start_instr);
    w.I64(f.end_instr);
    w.I64(f.num_args);
    w.I64(f.register_file_size);
    w.U64(f.param_names.size());
    for (const auto& p : f.param_names) w.Str(p);
  }
  w.U64(instructions.size());
  for (const auto& in : instructions) {
    w.U8(static_cast<uint8_t>(in.op));
    w.I64(in.dst);
    w.I64(in.func_idx);
    w.I64(in.reg);
    w.I64(in.offset);
    w.U64(in.args.size());
    for (const auto& a : in.args) {
      w.U8(static_cast<uint8_t>(a.kind));
      w.I64(a.value);
    }
  }
  std::string payload = std::move(w.bytes());
  Writer header;
  header.bytes().append(kMagic, sizeof(kMagic));
  header.Pod(kFormatVersion);
  header.U64(payload.size());
  header.U64(Fnv1a(payload));
  return header.bytes() + payload;
}

std::shared_ptr<Executable> Executable::LoadFromBinary(std::string_view bytes, std::string* error) {
  auto fail = [&](std::string why) -> std::shared_ptr<Executable> {
    if (error) *error = std::move(why);
    return nullptr;
  };
  try {
    if (bytes.size() < sizeof(kMagic) || std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
      return fail("not a workbench VM executable (bad magic)");
    }
    Reader header(bytes.substr(0, std::min(bytes.size(), kHeaderBytes)), 0);
    for (size_t i = 0; i < sizeof(kMagic); ++i) header.U8("the magic");
    uint32_t version = header.Pod<uint32_t>("the format version");
    if (version != kFormatVersion) {
      return fail("VM executable format version " + std::to_string(version) + ", but this runtime reads version " +
                  std::to_string(kFormatVersion));
    }
    uint64_t size = header.Pod<uint64_t>("the payload size");
    uint64_t hash = header.Pod<uint64_t>("the payload checksum");
    std::string_view payload = bytes.substr(kHeaderBytes);
    if (payload.size() != size) {
      return fail((payload.size() < size ? "truncated executable: the payload has " : "corrupt executable: the payload has ") +
                  std::to_string(payload.size()) + " bytes, the header says " + std::to_string(size));
    }
    if (Fnv1a(payload) != hash) return fail("corrupt executable: the payload's checksum does not match the header");

    auto exec = std::make_shared<Executable>();
    Reader r(payload, kHeaderBytes);
    uint64_t n = r.Count("the constant count", 1);
    for (uint64_t i = 0; i < n; ++i) exec->constants.push_back(r.Val());
    n = r.Count("the function count", 1 + 8 * 6);
    for (uint64_t i = 0; i < n; ++i) {
      FuncEntry f;
      uint8_t kind = r.U8("a function's kind");
      if (kind > static_cast<uint8_t>(FuncEntry::Kind::kVMFunc)) {
        return fail("corrupt executable: unknown function kind " + std::to_string(kind));
      }
      f.kind = static_cast<FuncEntry::Kind>(kind);
      f.name = r.Str("a function's name");
      f.start_instr = r.I64("a function's start");
      f.end_instr = r.I64("a function's end");
      f.num_args = r.I64("a function's argument count");
      f.register_file_size = r.I64("a function's register count");
      uint64_t params = r.Count("a function's parameter count", 8);
      for (uint64_t p = 0; p < params; ++p) f.param_names.push_back(r.Str("a parameter name"));
      exec->func_table.push_back(std::move(f));
    }
    n = r.Count("the instruction count", 1 + 8 * 5);
    for (uint64_t i = 0; i < n; ++i) {
      Instruction in;
      uint8_t op = r.U8("an instruction's opcode");
      if (op > static_cast<uint8_t>(Instruction::Op::kIf)) {
        return fail("corrupt executable: unknown opcode " + std::to_string(op) + " in instruction " + std::to_string(i));
      }
      in.op = static_cast<Instruction::Op>(op);
      in.dst = r.I64("an instruction's destination");
      in.func_idx = r.I64("an instruction's callee");
      in.reg = r.I64("an instruction's register");
      in.offset = r.I64("an instruction's offset");
      uint64_t args = r.Count("an instruction's argument count", 9);
      for (uint64_t a = 0; a < args; ++a) {
        uint8_t kind = r.U8("an argument's kind");
        if (kind > static_cast<uint8_t>(InstrArg::Kind::kFuncIdx)) {
          return fail("corrupt executable: unknown argument kind " + std::to_string(kind));
        }
        in.args.push_back({static_cast<InstrArg::Kind>(kind), r.I64("an argument's value")});
      }
      exec->instructions.push_back(std::move(in));
    }
    if (!r.AtEnd()) return fail("corrupt executable: bytes left after the instructions at byte " + std::to_string(r.position()));
    std::string invalid = exec->Validate();
    if (!invalid.empty()) return fail("invalid executable: " + invalid);
    return exec;
  } catch (const VMError& e) {
    return fail(e.what());
  }
}

std::string Executable::Validate() const {
  const int64_t num_instrs = static_cast<int64_t>(instructions.size());
  const int64_t num_funcs = static_cast<int64_t>(func_table.size());
  const int64_t num_consts = static_cast<int64_t>(constants.size());
  for (const FuncEntry& f : func_table) {
    if (f.kind != FuncEntry::Kind::kVMFunc) continue;
    if (f.start_instr < 0 || f.start_instr > f.end_instr || f.end_instr > num_instrs) {
      return "function '" + f.name + "' has code range [" + std::to_string(f.start_instr) + ", " +
             std::to_string(f.end_instr) + ") outside the " + std::to_string(num_instrs) + " instructions";
    }
    if (f.num_args < 0 || f.register_file_size < f.num_args) {
      return "function '" + f.name + "' has " + std::to_string(f.num_args) + " arguments but " +
             std::to_string(f.register_file_size) + " registers";
    }
    auto where = [&](int64_t pc) { return "instruction " + std::to_string(pc - f.start_instr) + " of '" + f.name + "'"; };
    auto reg_ok = [&](int64_t r) { return r >= 0 && r < f.register_file_size; };
    for (int64_t pc = f.start_instr; pc < f.end_instr; ++pc) {
      const Instruction& in = instructions[pc];
      switch (in.op) {
        case Instruction::Op::kCall:
          if (in.func_idx < 0 || in.func_idx >= num_funcs) return where(pc) + " calls function " + std::to_string(in.func_idx) + ", not in the table";
          if (in.dst != kVoidRegister && !reg_ok(in.dst)) return where(pc) + " writes register " + std::to_string(in.dst) + " out of range";
          for (const InstrArg& a : in.args) {
            bool ok = a.kind == InstrArg::Kind::kImmediate ||
                      (a.kind == InstrArg::Kind::kRegister && reg_ok(a.value)) ||
                      (a.kind == InstrArg::Kind::kConstIdx && a.value >= 0 && a.value < num_consts) ||
                      (a.kind == InstrArg::Kind::kFuncIdx && a.value >= 0 && a.value < num_funcs);
            if (!ok) return where(pc) + " has an argument index " + std::to_string(a.value) + " out of range";
          }
          break;
        case Instruction::Op::kRet:
          if (!reg_ok(in.reg)) return where(pc) + " returns register " + std::to_string(in.reg) + " out of range";
          break;
        case Instruction::Op::kIf:
          if (!reg_ok(in.reg)) return where(pc) + " tests register " + std::to_string(in.reg) + " out of range";
          [[fallthrough]];
        case Instruction::Op::kGoto:
          if (pc + in.offset < f.start_instr || pc + in.offset >= f.end_instr) {
            return where(pc) + " jumps by " + std::to_string(in.offset) + ", out of the function";
          }
          break;
      }
    }
  }
  return "";
}

}  // namespace wb::runtime::vm
