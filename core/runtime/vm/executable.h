// The Relax VM's executable (TVM's relax_vm::Executable): a constant pool, a table of the
// functions instructions call (VM functions of this executable, builtins of the VM, kernels of
// the built runtime::Module, all by name), and the instructions of every VM function. Four
// instructions, as in TVM: Call, Ret, Goto, If. Runtime only: no IR headers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/vm/value.h"

namespace wb::runtime::vm {

// An instruction argument: a register of the frame, an immediate integer, a constant of the
// pool, or an entry of the function table (a function passed as a value).
struct InstrArg {
  enum class Kind : uint8_t { kRegister, kImmediate, kConstIdx, kFuncIdx };
  Kind kind = Kind::kRegister;
  int64_t value = 0;
  static InstrArg Register(int64_t r) { return {Kind::kRegister, r}; }
  static InstrArg Immediate(int64_t v) { return {Kind::kImmediate, v}; }
  static InstrArg ConstIdx(int64_t c) { return {Kind::kConstIdx, c}; }
  static InstrArg FuncIdx(int64_t f) { return {Kind::kFuncIdx, f}; }
};

// The register a call writes when its result is not used.
constexpr int64_t kVoidRegister = -1;

struct Instruction {
  enum class Op : uint8_t { kCall, kRet, kGoto, kIf };
  Op op = Op::kRet;
  // kCall: dst = func_table[func_idx](args...).
  int64_t dst = kVoidRegister;
  int64_t func_idx = 0;
  std::vector<InstrArg> args;
  // kRet: the register returned. kIf: the condition register.
  int64_t reg = 0;
  // kGoto: pc += offset. kIf: pc += 1 when the condition is true, pc += offset when false.
  int64_t offset = 0;
};

// An entry of the function table.
struct FuncEntry {
  enum class Kind : uint8_t { kPackedFunc, kVMFunc };
  Kind kind = Kind::kPackedFunc;
  std::string name;
  // kVMFunc: the code range and frame size.
  int64_t start_instr = 0;
  int64_t end_instr = 0;
  int64_t num_args = 0;
  int64_t register_file_size = 0;
  std::vector<std::string> param_names;
};

class Executable {
 public:
  std::vector<Value> constants;
  std::vector<FuncEntry> func_table;
  std::vector<Instruction> instructions;

  // Index of `name` in the function table, or -1.
  int64_t FindFunction(const std::string& name) const;
  // Adds (or finds) a packed-function entry; returns its index.
  int64_t GetOrAddPackedFunc(const std::string& name);

  // The instructions as text, one function after another (TVM's `exec.as_text()`): what the
  // GUI shows for a built VM program.
  std::string AsText() const;

  // TVM's SaveToBinary / LoadFromBinary: what an exported `.so` carries beside its kernels
  // (runtime/vm/executable_serialize.cpp has the layout). Saving throws VMError for a constant
  // that has no binary form. Loading checks the magic, the format version, the length and a
  // checksum, then every index an instruction holds (function, register, constant, jump
  // target); nullptr with the reason in *error when any check fails.
  std::string SaveToBinary() const;
  static std::shared_ptr<Executable> LoadFromBinary(std::string_view bytes, std::string* error);
  // The index checks alone: empty when every instruction is in range, else the first problem.
  std::string Validate() const;
};

}  // namespace wb::runtime::vm
