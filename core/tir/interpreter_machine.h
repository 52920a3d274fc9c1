// Internal to the reference interpreter: the compiled form of a PrimFunc (closures with every
// variable and buffer resolved to a slot of a Frame) and the machine state of one run.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tir/interpreter.h"
#include "tir/interpreter_value.h"

namespace wb::tir::interp {

// What a buffer refers to while it is in scope.
struct BufferBinding {
  bool bound = false;
  Storage* storage = nullptr;
  int64_t handle_offset = 0;  // byte offset in storage of the data pointer
  int64_t base = 0;           // byte offset in storage of element 0 (data + elem_offset)
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // in elements, always filled
};

struct Frame {
  std::vector<Value> vars;
  std::vector<BufferBinding> buffers;
  Value ret;
};

using ExprFn = std::function<Value(Frame&)>;
enum class Flow : uint8_t { kNormal, kBreak, kContinue, kReturn };
using StmtFn = std::function<Flow(Frame&)>;

// A scalar expression compiled for the fast path (interpreter_scalar.cpp): what loops spend
// their time on (index arithmetic, loads, scalar math) evaluated to the 8-byte Scalar of its
// static dtype, without building a Value. TIR is typed, so how to normalize, compare, load or
// store each lane is known when compiling. Constants and variables are read in place, without
// a call; anything else calls `fn`.
//
// Integer expressions that are affine in variables of their own type (index arithmetic: `i * 64 +
// j`, `(i + 1) * n_const - k`) are one Operand too, kAffine: `value + sum(coeffs[t] * var[t])`,
// computed in wrapping 64-bit arithmetic and wrapped to the dtype once at the end, which is what
// the tree of wrapping operations gives (both are exact modulo 2^bits). A variable that holds
// another type than declared sends the evaluation to `fn`, the operations one by one.
struct Operand {
  enum class How : uint8_t { kConst, kVar, kAffine, kCall };
  static constexpr int kMaxTerms = 4;
  How how = How::kCall;
  DataType dtype;
  Kind kind = Kind::kInt;  // KindOf(dtype)
  Scalar value{0};         // kConst; kAffine: the constant term
  int slot = -1;           // kVar
  const VarNode* var = nullptr;
  int terms = 0;                         // kAffine
  int term_slots[kMaxTerms] = {};        // kAffine
  int64_t term_coeffs[kMaxTerms] = {};   // kAffine
  std::function<Scalar(Frame&)> fn;  // kCall; kAffine: the same computed operation by operation

  [[gnu::always_inline]] Scalar operator()(Frame& f) const {
    if (how == How::kConst) return value;
    if (how == How::kVar) {
      const Value& v = f.vars[slot];
      if (v.dtype() != dtype) [[unlikely]] return Mismatch(v);
      return v.scalar();
    }
    if (how == How::kAffine) {
      auto acc = static_cast<uint64_t>(value.i);
      for (int t = 0; t < terms; ++t) {
        const Value& v = f.vars[term_slots[t]];
        if (v.dtype() != dtype) [[unlikely]] return fn(f);
        acc += static_cast<uint64_t>(v.scalar().i) * static_cast<uint64_t>(term_coeffs[t]);
      }
      return Normalize(dtype, Scalar{.i = static_cast<int64_t>(acc)});
    }
    return fn(f);
  }
  // The operand as a loop bound or index (lane 0 as an integer), or as a condition.
  int64_t AsInt(Frame& f) const {
    const Scalar s = (*this)(f);
    return kind == Kind::kFloat ? static_cast<int64_t>(s.f) : s.i;
  }
  bool AsBool(Frame& f) const {
    const Scalar s = (*this)(f);
    return kind == Kind::kFloat ? s.f != 0 : s.i != 0;
  }

 private:
  // A variable holding no value (used outside its scope) fails; one holding a scalar of another
  // type (only ill-typed IR binds one) is read as its declared type.
  Scalar Mismatch(const Value& v) const;
};

// An expression that either binds an unbound variable (a shape var meeting its first array) or
// must equal a given value.
struct Matcher {
  int var_slot = -1;
  DataType var_dtype;
  ExprFn eval;
  PrimExpr expr;
};

// Compile-time facts about one buffer.
struct BufferInfo {
  Buffer buffer;
  int slot = -1;
  int data_slot = -1;
  int64_t elem_bytes = 0;
  std::vector<Matcher> shape;
  std::vector<Matcher> strides;  // empty: compact
  Matcher elem_offset;           // eval null: 0
};

struct CompiledFunc {
  PrimFunc func;
  std::string name;
  int num_vars = 0;
  int num_buffers = 0;
  std::vector<int> param_slots;
  std::vector<BufferInfo*> param_buffers;  // null for scalar/handle params
  std::vector<std::unique_ptr<BufferInfo>> buffers;
  StmtFn body;
};

// Allocations in scope (a stack) and released records reused by Allocate.
struct Arena {
  std::vector<std::unique_ptr<Storage>> live;
  std::vector<std::unique_ptr<Storage>> free;
};

class Machine {
 public:
  Machine(ir::IRModule module, InterpretOptions options)
      : module_(std::move(module)), options_(options) {}

  const ir::IRModule& module() const { return module_; }
  // Compiles once per function (cached).
  CompiledFunc* Compile(const PrimFunc& func, const std::string& name);
  InterpretResult RunTop(const PrimFunc& func, const std::string& name, std::vector<InterpArg> args);
  // A GlobalVar call from running code.
  Value CallFunction(const std::string& name, std::vector<Value> args, const Span& span);

  Storage* Allocate(const std::string& name, int64_t bytes, const Span& span);
  size_t ArenaMark() { return CurrentArena().live.size(); }
  // Frees the allocations made since `mark`. The Storage records themselves are kept for
  // reuse, never deleted during a run, so a stale pointer (only ill-formed IR keeps one past
  // its scope) still meets a bounds check instead of freed memory.
  void ArenaRelease(size_t mark) {
    Arena& arena = CurrentArena();
    while (arena.live.size() > mark) {
      std::unique_ptr<Storage> s = std::move(arena.live.back());
      arena.live.pop_back();
      s->owned.reset();
      s->shadow.reset();
      s->data = nullptr;
      s->bytes = 0;
      arena.free.push_back(std::move(s));
    }
  }
  // The allocation stack of the running GPU thread (each thread of a team has its own, as
  // their allocations' lifetimes interleave), or the machine's.
  Arena& CurrentArena() {
    Arena* a = ThreadArena();
    return a ? *a : arena_;
  }
  static Arena*& ThreadArena();
  // Counts `n` loop iterations at once (a LoopKernel's whole loop), unless that would pass the
  // limit: then nothing is counted and the caller runs the iterations one by one (Tick), so
  // that the limit stops the run where it would have.
  bool TakeIterations(uint64_t n) {
    if (options_.max_iterations && (n > options_.max_iterations || iterations_ > options_.max_iterations - n)) return false;
    iterations_ += n;
    return true;
  }
  void Tick(const Span& span) {
    if (options_.max_iterations && ++iterations_ > options_.max_iterations) {
      Fail("stopped after " + std::to_string(options_.max_iterations) +
               " loop iterations (InterpretOptions::max_iterations); the program may not terminate",
           span);
    }
  }

  // Binds `info`'s buffer to memory at `handle`: evaluates its shape, strides and element
  // offset in `frame` (binding still-unbound variables to `actual_*` where given).
  void BindBuffer(Frame& frame, const BufferInfo& info, const Value& handle, const Span& span,
                  const std::vector<int64_t>* actual_shape = nullptr,
                  const std::vector<int64_t>* actual_strides = nullptr,
                  std::optional<int64_t> actual_elem_offset = std::nullopt,
                  const char* declarer = "the function");
  // The binding of a buffer in use; a buffer never declared in this frame but whose data
  // variable holds a pointer is bound from it on the fly.
  BufferBinding& Resolve(Frame& frame, const BufferInfo& info, const Span& span) {
    BufferBinding& b = frame.buffers[info.slot];
    return b.bound ? b : BindFromData(frame, info, span);
  }

 private:
  BufferBinding& BindFromData(Frame& frame, const BufferInfo& info, const Span& span);

  ir::IRModule module_;
  InterpretOptions options_;
  Arena arena_;
  std::vector<std::unique_ptr<Storage>> arg_storage_;
  std::unordered_map<const PrimFuncNode*, std::unique_ptr<CompiledFunc>> compiled_;
  uint64_t iterations_ = 0;
  int depth_ = 0;
};

// A compiled buffer access (load, store, address_of, a match_buffer region's start).
struct Access {
  const BufferInfo* info = nullptr;
  std::vector<ExprFn> indices;
  std::vector<Operand> scalar_indices;  // when `scalar`: the indices for ScalarAddress
  ExprFn predicate;
  Span span;
  Machine* machine = nullptr;
  const char* verb = "read";
  // True when every index is a scalar and there is no predicate: the common case, which
  // ScalarAddress serves without allocating.
  bool scalar = false;

  // The byte offset (into the storage) of the element at `idx` (one index per dimension, or
  // one flat row-major index), after checking it against the buffer's shape and memory.
  int64_t ElementByte(const BufferBinding& b, const int64_t* idx, size_t n, int lane,
                      int lanes) const;
  // The byte offset of a scalar access (`scalar` is true). Inline for the loads and stores
  // that loops spend their time on: up to four indices, one per dimension, in bounds; anything
  // else (and every error) goes through ScalarAddressSlow.
  [[gnu::always_inline]] int64_t ScalarAddress(Frame& frame, Storage** storage) const;
  // The same for an access known, when compiling, to have N indices.
  template <int N>
  [[gnu::always_inline]] int64_t ScalarAddressOf(Frame& frame, Storage** storage) const;
  int64_t ScalarAddressSlow(Frame& frame, Storage** storage) const;
  // Byte offsets of the elements a vector access touches, one per index lane; -1 for lanes
  // that the predicate masks off (those are not checked: they are never touched).
  void Addresses(Frame& frame, std::vector<int64_t>* out, Storage** storage, int* index_lanes,
                 const Value* pred) const;

 private:
  int64_t IndexValue(Frame& frame, size_t k, Value* v) const;
};

template <int N>
inline int64_t Access::ScalarAddressOf(Frame& frame, Storage** storage) const {
  const BufferBinding& b = machine->Resolve(frame, *info, span);
  if (b.shape.size() != N) [[unlikely]] return ScalarAddressSlow(frame, storage);
  *storage = b.storage;
  int64_t idx[N];
  uint64_t offset = 0;
  bool ok = true;
  for (int k = 0; k < N; ++k) {
    idx[k] = scalar_indices[k](frame).i;
    ok &= static_cast<uint64_t>(idx[k]) < static_cast<uint64_t>(b.shape[k]);
    offset += static_cast<uint64_t>(idx[k]) * static_cast<uint64_t>(b.strides[k]);
  }
  const auto byte = static_cast<int64_t>(static_cast<uint64_t>(b.base) +
                                         offset * static_cast<uint64_t>(info->elem_bytes));
  if (ok && byte >= 0 && byte + info->elem_bytes <= b.storage->bytes) [[likely]] return byte;
  return ElementByte(b, idx, N, 0, 1);
}

inline int64_t Access::ScalarAddress(Frame& frame, Storage** storage) const {
  switch (scalar_indices.size()) {
    case 1: return ScalarAddressOf<1>(frame, storage);
    case 2: return ScalarAddressOf<2>(frame, storage);
    case 3: return ScalarAddressOf<3>(frame, storage);
    case 4: return ScalarAddressOf<4>(frame, storage);
    default: return ScalarAddressSlow(frame, storage);
  }
}

// Calls `make.template operator()<N>()` with N the number of indices of `access` when it is 1 to
// 4, else with N = 0 (meaning: use ScalarAddress): how a closure gets its access's rank as a
// constant.
template <typename Make>
auto WithRank(const Access& access, Make&& make) {
  switch (access.scalar_indices.size()) {
    case 1: return make.template operator()<1>();
    case 2: return make.template operator()<2>();
    case 3: return make.template operator()<3>();
    case 4: return make.template operator()<4>();
    default: return make.template operator()<0>();
  }
}

template <int N>
[[gnu::always_inline]] inline int64_t AddressOf(const Access& access, Frame& frame, Storage** storage) {
  if constexpr (N == 0) return access.ScalarAddress(frame, storage);
  else return access.template ScalarAddressOf<N>(frame, storage);
}

// Matcher evaluation: binds or checks; `what` names the quantity in the error.
int64_t MatchOrBind(Frame& frame, const Matcher& m, int64_t actual, const std::string& what,
                    const Span& span, const char* declarer = "the function");

// What the scalar fast path needs from the compiler of the function it is part of.
class ExprCompiler {
 public:
  virtual ~ExprCompiler() = default;
  // The frame slot of a variable.
  virtual int Slot(const VarNode* var) = 0;
  // A compiled buffer access (see Access).
  virtual std::shared_ptr<Access> MakeAccess(const Buffer& buffer, const std::vector<PrimExpr>& indices,
                                             const PrimExpr& predicate, const Span& span,
                                             const char* verb) = 0;
  // The general closure of an expression.
  virtual ExprFn Expr(const PrimExpr& e) = 0;
};

// The fast path of `e` when `e` is a scalar of a supported dtype built only from constants,
// variables, casts, binary and logical operations, selects, T.if_then_else, T.likely and scalar
// buffer loads (all its operands too); nullopt otherwise, and the general closures run it.
// Never throws: what cannot run fails when it is reached, in the general closures.
std::optional<Operand> CompileScalar(ExprCompiler& compiler, const PrimExpr& e);
// Loop bounds and the like: `e` read as Operand::AsInt reads it (lane 0 as an integer), through
// the fast path where it applies, else through the general closure.
Operand CompileInt(ExprCompiler& compiler, const PrimExpr& e);
// Conditions: `e` read as Operand::AsBool reads it (lane 0 as a truth value), likewise.
Operand CompileBool(ExprCompiler& compiler, const PrimExpr& e);

// An innermost loop compiled to flat register bytecode (interpreter_kernel.cpp): null when its
// body holds what the kernel does not run (loops, allocations, vector or general expressions,
// ...). `loop` is a serial-semantics For whose variable has `loop_slot`; its body's closures must
// be compiled first (the iter var slot sharing is read from the compiler).
struct LoopKernel;
std::shared_ptr<const LoopKernel> CompileLoopKernel(ExprCompiler& compiler, const ForNode* loop, int loop_slot);
// Runs the iterations `lo, lo + step, ...` below `lo + n` of the loop through its kernel and
// returns true; or returns false, having run and changed nothing, when it cannot be sure to do
// exactly what the closures do (an address out of bounds at either end, a variable of another
// type, the iteration limit near, ...): then the caller runs the loop's closures.
bool RunLoopKernel(const LoopKernel& kernel, Machine* machine, Frame& frame, int64_t lo, int64_t n, int64_t step);

std::unique_ptr<CompiledFunc> CompileFunc(Machine* machine, const PrimFunc& func,
                                          const std::string& name);

}  // namespace wb::tir::interp
