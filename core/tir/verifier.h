// The well-formedness verifier: tells whether a PrimFunc (or every PrimFunc of a module) is valid
// TensorIR before a pass, a schedule primitive or codegen relies on it, as TVM's
// `tvm.tirx.analysis.verify_well_formed` does.
//
// It exists so that a pass that breaks the IR is caught right after the pass, with the span of
// the offending node, rather than as a crash or a wrong kernel several passes later. It never
// throws on bad IR: every finding becomes an error Diagnostic, all of them are collected (not just
// the first), in the order of the printed source.
//
// What is checked:
//  - every variable use is in the scope of a definition: a parameter, a symbolic variable in the
//    shape/strides/elem_offset of a parameter's buffer or of a match_buffer, an enclosing For,
//    SBlock iter var, launch_thread (thread_extent/virtual_thread on an IterVar) or Let, a Bind
//    earlier in an enclosing sequence, or the data pointer of a buffer in scope;
//  - inside a non-opaque SBlock, loop variables of loops outside it appear only through the
//    block's iter var bindings;
//  - no variable is defined twice (parameters, loop vars, Bind vars, iter vars, Let vars);
//  - BufferLoad, BufferStore and buffer regions give one index per buffer dimension;
//  - every buffer accessed is declared: in the buffer_map, by AllocBuffer/DeclBuffer earlier in
//    an enclosing sequence, or by an enclosing SBlock's alloc_buffers/match_buffers;
//  - SBlockRealize binds every iter var of its block, with an integer value of the iter var's
//    dtype;
//  - a BufferStore's value has the buffer's element type;
//  - an SBlock with an init statement has a reduction iter var;
//  - (modules) every call through a GlobalVar names a function of the module.
#pragma once

#include "ir/expr.h"
#include "support/diagnostic.h"
#include "tir/stmt.h"

namespace wb::tir {

// Checks one function on its own; calls to other functions (GlobalVar) are not checked.
DiagnosticList VerifyWellFormed(const PrimFunc& func);

// Checks every PrimFunc of the module, and that GlobalVar calls name one of its functions.
DiagnosticList VerifyWellFormed(const ir::IRModule& module);

}  // namespace wb::tir
