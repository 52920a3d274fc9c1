// What every op family's legalization shares (TVM's bb.call_te): the call's operands become TE
// placeholders (or inline scalars), a topi function computes the result, create_prim_func
// turns it into a private PrimFunc added to the module (an identical one is reused, a new name
// is made unique as "add", "add1", ...), and the call becomes
// `R.call_tir(cls.<name>, (args...), out_ty=...)`.
#pragma once

#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "relax/block_builder.h"
#include "relax/expr.h"
#include "te/tensor.h"

namespace wb::transform::legalize {

using relax::BlockBuilder;
using relax::Call;
using relax::Expr;

// Thrown by a legalization that cannot handle this call (an unknown shape, an unsupported
// attribute value); LegalizeOps leaves the call as it is and reports the message.
class LegalizeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using LegalizeFunc = std::function<Expr(BlockBuilder&, const Call&)>;
using LegalizeTable = std::map<std::string, LegalizeFunc, std::less<>>;

// Per-family registration, called once when the table is first used (never from a static
// initializer, so the op registry is complete by then).
void RegisterBinary(LegalizeTable& table);
void RegisterUnary(LegalizeTable& table);
void RegisterLinalg(LegalizeTable& table);
void RegisterNN(LegalizeTable& table);
void RegisterManipulate(LegalizeTable& table);
void RegisterReduce(LegalizeTable& table);
void RegisterCreate(LegalizeTable& table);
void RegisterImage(LegalizeTable& table);
void RegisterCCL(LegalizeTable& table);

// The operands of one call_tir under construction.
class TECall {
 public:
  explicit TECall(BlockBuilder& builder) : builder_(builder) {}

  // Argument `i` of the call as a placeholder named after the Relax var (or "rxplaceholder");
  // its type must be a tensor of known shape and dtype.
  te::Tensor Tensor(const Call& call, size_t i);
  te::Tensor Tensor(const Expr& arg);
  // A scalar operand: a 0-d constant or a constant R.prim_value inline, a R.Prim var as a scalar
  // parameter of the PrimFunc; null when `arg` is none of those.
  ir::PrimExpr Scalar(const Expr& arg);

  // Dims of the Relax program as the PrimFunc sees them: each symbolic var is replaced by the
  // PrimFunc's own copy (every PrimFunc defines its shape vars itself), made on first sight.
  ir::PrimExpr Dim(const ir::PrimExpr& dim);
  std::vector<ir::PrimExpr> Dims(const std::vector<ir::PrimExpr>& dims);

  // Builds the PrimFunc computing `outputs` and returns the call_tir. `name` is the PrimFunc's
  // name hint. A symbolic var that no input or output has as a whole dim (only inside compound
  // dims such as `n * 4`, or only in the computation) cannot be read from the buffers: it
  // becomes a scalar parameter after the inputs and before the outputs, passed as an
  // R.prim_value argument of the call (TVM's rule in bb.call_te).
  Expr Emit(const std::vector<te::Tensor>& outputs, const std::string& name);
  Expr Emit(const te::Tensor& output, const std::string& name) {
    return Emit(std::vector<te::Tensor>{output}, name);
  }
  // Emit for kernels that a schedule rewrites after create_prim_func (TVM's legalizations that
  // run a schedule primitive, as layout_transform runs transform_layout): `rewrite` returns the
  // new PrimFunc, whose results have `out_type` (in the Relax program's vars; null: the
  // outputs' shapes).
  using PrimFuncRewrite = std::function<tir::PrimFunc(const tir::PrimFunc&)>;
  Expr EmitRewritten(const std::vector<te::Tensor>& outputs, const std::string& name,
                     const PrimFuncRewrite& rewrite, const relax::Type& out_type);

 private:
  BlockBuilder& builder_;
  std::vector<te::Tensor> inputs_;
  std::vector<Expr> input_exprs_;
  std::vector<tir::Var> scalar_params_;
  std::unordered_map<const tir::VarNode*, ir::PrimExpr> to_func_;   // Relax var -> own copy
  std::unordered_map<const tir::VarNode*, ir::PrimExpr> to_relax_;  // own copy -> Relax var
  std::vector<tir::Var> copies_;                                    // own copies, first use first
};

// The static shape of a tensor-typed expression, or LegalizeError.
std::vector<ir::PrimExpr> ShapeOf(const Expr& expr);
// The call's result tensor type, or LegalizeError.
const relax::TensorTypeNode* OutputTensorType(const Call& call);
// The values of a ShapeExpr argument (R.shape([...])), or LegalizeError.
std::vector<ir::PrimExpr> ShapeValues(const Expr& expr);

// Adds `func` to the builder's module as a private PrimFunc: an existing structurally equal
// PrimFunc is reused; otherwise the first free name of `name`, `name1`, `name2`, ...
ir::GlobalVar AddPrimFunc(BlockBuilder& builder, const tir::PrimFunc& func,
                          const std::string& name);

// While alive, AddPrimFunc finds equal PrimFuncs through a table of structural hashes kept
// for one builder (LegalizeModule holds one), instead of hashing the whole module per call.
class PrimFuncCacheScope {
 public:
  explicit PrimFuncCacheScope(BlockBuilder& builder);
  ~PrimFuncCacheScope();
  PrimFuncCacheScope(const PrimFuncCacheScope&) = delete;
  PrimFuncCacheScope& operator=(const PrimFuncCacheScope&) = delete;

  BlockBuilder& builder;
  std::unordered_multimap<uint64_t, ir::GlobalVar> by_hash;
  std::unordered_map<std::string, int> next_suffix;  // per name hint: the next number to try

 private:
  PrimFuncCacheScope* previous_;
};

}  // namespace wb::transform::legalize
