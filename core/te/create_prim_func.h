// create_prim_func: TE stages -> a PrimFunc, shaped exactly as TVM's te.create_prim_func makes
// it: a root block holding the intermediate stages' buffers (T.sblock_alloc_buffer), one loop
// nest and T.sblock per stage, named after the stage (made unique: "T_add", "T_add_1"), with
// T.axis.spatial / T.axis.reduce block vars "v_<axis>" bound to loops "<axis>", T.reads /
// T.writes inferred from the body, T.init for reductions, and the attributes
// {"global_symbol": "main", "tirx.noalias": True} plus the s_tir flag.
//
// Stages whose reduction extents depend on spatial indices (adaptive pooling) get TVM's nested
// blocks: an outer block per dependency level ("<name>_l1") and the leaf block inside.
#pragma once

#include <string>
#include <vector>

#include "te/tensor.h"
#include "tir/stmt.h"

namespace wb::te {

// One parameter of the function: a tensor (a buffer parameter) or a scalar var (a
// T.int64-typed parameter, for symbolic sizes the buffers alone do not determine).
struct PrimFuncArg {
  PrimFuncArg(Tensor t) : tensor(std::move(t)) {}  // NOLINT(google-explicit-constructor)
  PrimFuncArg(Var v) : scalar(std::move(v)) {}     // NOLINT(google-explicit-constructor)
  Tensor tensor;
  Var scalar;
};

// Builds the PrimFunc computing `args`' outputs from its inputs, in the order given. Every
// placeholder reached from the outputs must be among `args`; otherwise std::invalid_argument
// names it. `index_dtype` (TVM's index_dtype_override; Relax's call_te asks for int64) is the
// dtype of the block iterator a scalar stage gets; Void: int32.
tir::PrimFunc create_prim_func(const std::vector<PrimFuncArg>& args, DataType index_dtype = DataType::Void());

}  // namespace wb::te
