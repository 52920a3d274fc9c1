// The CUDA C printer behind CodegenCUDA (internal to core/codegen/cuda). One CudaPrinter prints
// one translation unit; each device PrimFunc becomes an `extern "C" __global__` kernel.
//   cuda_types.cpp   dtypes -> CUDA C types, literals, casts, the prelude (fp16/bf16 headers)
//   cuda_expr.cpp    expressions; vectors are printed lane by lane (CUDA's vector types have no
//                    arithmetic), and loaded/stored as float4/half2/... where the access is
//                    contiguous and provably aligned, else one element a lane
//   cuda_intrin.cpp  builtin calls: math (per dtype, __expf & co. under fast math), bit ops,
//                    barriers, warp shuffles, atomics
//   cuda_stmt.cpp    statements, allocations (shared / dynamic shared / local), kernels
#pragma once

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "arith/analyzer.h"
#include "codegen/build.h"
#include "codegen/cuda/codegen_cuda.h"
#include "tir/functor.h"
#include "tir/stmt.h"

namespace wb::codegen::cuda {

using ir::DataType;
using ir::PrimExpr;

class CudaPrinter : public tir::ExprFunctor<std::string(const PrimExpr&)>,
                    public tir::StmtFunctor<void(const tir::Stmt&)> {
 public:
  explicit CudaPrinter(std::string arch) : arch_(std::move(arch)) {}

  // Prints `func` as the kernel `name` and returns what the runtime needs to launch it.
  CudaKernelInfo AddKernel(const std::string& name, const tir::PrimFunc& func);
  // The whole translation unit: the prelude the kernels need, then the kernels.
  std::string Finish() const;

  // --- types and literals (cuda_types.cpp)
  std::string TypeName(DataType t);                  // scalar or native vector type
  bool HasVectorType(DataType t) const;              // float4, half2, char4, ...
  std::string MakeVector(DataType t, const std::vector<std::string>& lanes);
  static std::string LaneField(int i);               // ".x", ".y", ...
  std::string IntLiteral(DataType t, int64_t v);
  std::string FloatLiteral(DataType t, double v);
  std::string CastString(DataType from, DataType to, const std::string& v);
  bool IsHalf(DataType t) const { return t.is_float() && t.bits() == 16; }
  bool IsNarrowFloat(DataType t) const { return IsHalf(t) || t.is_bfloat16(); }
  // The value as float32 (narrow floats) / back to the narrow type.
  std::string ToFloat(DataType t, const std::string& v);
  std::string FromFloat(DataType t, const std::string& v);

  // --- expressions (cuda_expr.cpp)
#define WB_DECL(Name) std::string VisitExpr_(const tir::Name##Node* op) override;
  WB_EXPR_NODES(WB_DECL)
#undef WB_DECL
  // A scalar expression as C text.
  std::string Print(const PrimExpr& e);
  // The lanes of a vector expression (or `lanes` copies of a scalar), each scalar C text.
  std::vector<std::string> Lanes(const PrimExpr& e, int lanes);
  // Declares `T name = value;` before the statement being printed; returns the name.
  std::string SSA(DataType t, const std::string& value, const std::string& hint = "v");
  // Binary node kinds on scalar C text of dtype t (t: operand dtype).
  std::string Binary(ir::TypeIndex kind, DataType t, const std::string& a, const std::string& b,
                     const PrimExpr& lhs = PrimExpr(), const PrimExpr& rhs = PrimExpr());
  // A buffer access: the flat element index (vector for vector accesses).
  PrimExpr FlatIndex(const tir::Buffer& buffer, const std::vector<PrimExpr>& indices);
  // `buffer[index]` as an lvalue/rvalue.
  std::string Element(const tir::Buffer& buffer, const std::string& index);
  // The address of a contiguous, aligned vector access at flat `index`, or "" when it must be
  // scalarized.
  std::string VectorAddress(const tir::Buffer& buffer, const PrimExpr& index, DataType access);
  std::string BufferPointer(const tir::Buffer& buffer);

  // --- builtin calls (cuda_intrin.cpp)
  // A call with scalar operands given as text (math, bit ops, ...), or "" when not elementwise.
  std::string ElementwiseCall(const std::string& name, DataType result, const std::vector<DataType>& arg_types,
                              const std::vector<std::string>& args);
  std::string PrintCall(const tir::CallNode* op);

  // --- statements (cuda_stmt.cpp)
#define WB_DECL(Name) void VisitStmt_(const tir::Name##Node* op) override;
  WB_STMT_NODES(WB_DECL)
#undef WB_DECL
  void PrintStmt(const tir::Stmt& s) { tir::StmtFunctor<void(const tir::Stmt&)>::VisitStmt(s); }
  std::ostream& Line() { return body_ << std::string(indent_ * 2, ' '); }
  // Throws CodegenError naming the function and the construct.
  [[noreturn]] void Unsupported(const std::string& what) const;

  // --- names
  std::string AllocName(const std::string& hint);
  std::string NameOf(const tir::VarNode* var);
  std::string Define(const tir::VarNode* var);  // a fresh C name for a binding site

  std::string arch_;
  std::ostringstream body_;
  int indent_ = 0;
  std::string func_name_;
  bool fast_math_ = false;
  bool use_dyn_shared_ = false;
  int dyn_shared_allocs_ = 0;
  bool need_fp16_ = false;
  bool need_bf16_ = false;
  std::set<std::string> helpers_;  // prelude helpers used: "floordiv", "bitcast", ...

  std::set<std::string> used_names_;
  std::unordered_map<const tir::VarNode*, std::string> names_;
  // Vector-valued Let/Bind variables: their lanes' C names.
  std::unordered_map<const tir::VarNode*, std::vector<std::string>> vector_vars_;
  // Pointer variables' C element type (what `name[i]` reads without a cast).
  std::unordered_map<const tir::VarNode*, DataType> pointer_elem_;
  // Alignment in bytes known for a pointer variable's target.
  std::unordered_map<const tir::VarNode*, int64_t> pointer_align_;
  arith::Analyzer analyzer_;
  std::map<std::string, int64_t> thread_extents_;  // constant extents per thread tag
  std::vector<std::string> launched_tags_;         // in order of first launch
  bool launch_bound_known_ = true;
};

// The kernel name of a device PrimFunc and whether it is one (calling_conv == 2).
bool IsDeviceKernel(const tir::PrimFunc& func);

}  // namespace wb::codegen::cuda
