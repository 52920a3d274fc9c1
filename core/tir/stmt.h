// TensorIR statements, buffers, blocks and PrimFuncs, in TVM's current (tirx) form: Bind,
// AllocBuffer, DeclBuffer and AssertStmt have no body; what they define is visible in the rest
// of the enclosing sequence.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tir/expr.h"

namespace wb::tir {

// --- Buffers -----------------------------------------------------------------------------------

// A multi-dimensional view of memory. `data` is the handle variable holding the pointer; the
// storage scope lives on the data variable's pointer type, as in TVM.
class BufferNode : public Object {
 public:
  WB_NODE_FINAL(BufferNode, kBuffer, Object)
  Var data;
  DataType dtype;
  std::vector<PrimExpr> shape;
  std::vector<PrimExpr> strides;  // empty: compact row-major
  PrimExpr elem_offset;
  std::string name;
  int64_t data_alignment = 64;
  int64_t offset_factor = 1;

  void VisitFields(FieldVisitor* v) override;
  std::string scope() const;
  size_t ndim() const { return shape.size(); }
};

struct BufferOptions {
  std::vector<PrimExpr> strides;
  PrimExpr elem_offset;  // default: 0 of the index dtype
  std::string scope = "global";
  int64_t data_alignment = 64;
  int64_t offset_factor = 1;
  Var data;  // default: a fresh pointer variable named after the buffer
};
Buffer MakeBuffer(std::string name, std::vector<PrimExpr> shape, DataType dtype,
                  BufferOptions options = {}, Span span = {});

class BufferRegionNode : public Object {
 public:
  WB_NODE_FINAL(BufferRegionNode, kBufferRegion, Object)
  Buffer buffer;
  std::vector<Range> region;
  void VisitFields(FieldVisitor* v) override;
};
using BufferRegion = Ref<BufferRegionNode>;
BufferRegion MakeBufferRegion(Buffer buffer, std::vector<Range> region, Span span = {});
BufferRegion FullRegion(const Buffer& buffer);

class MatchBufferRegionNode : public Object {
 public:
  WB_NODE_FINAL(MatchBufferRegionNode, kMatchBufferRegion, Object)
  Buffer buffer;
  BufferRegion source;
  void VisitFields(FieldVisitor* v) override;
};
using MatchBufferRegion = Ref<MatchBufferRegionNode>;
MatchBufferRegion MakeMatchBufferRegion(Buffer buffer, BufferRegion source, Span span = {});

// --- Iteration variables -----------------------------------------------------------------------

enum class IterVarType : int {
  kDataPar = 0,
  kThreadIndex = 1,
  kCommReduce = 2,
  kOrdered = 3,
  kOpaque = 4,
  kUnrolled = 5,
  kVectorized = 6,
  kParallelized = 7,
  kTensorized = 8,
};
const char* IterVarTypeName(IterVarType t);

class IterVarNode : public Object {
 public:
  WB_NODE_FINAL(IterVarNode, kIterVar, Object)
  Range dom;
  Var var;
  IterVarType iter_type = IterVarType::kDataPar;
  std::string thread_tag;
  void VisitFields(FieldVisitor* v) override;
};
IterVar MakeIterVar(Range dom, Var var, IterVarType type, std::string thread_tag = "",
                    Span span = {});

// --- Statements --------------------------------------------------------------------------------

class StmtNode : public Object {
 public:
  WB_NODE_BASE(StmtNode, kStmtBegin, kStmtEnd, Object)
};
using Stmt = Ref<StmtNode>;

// `x: T.let[T.int32] = value`: binds var for the rest of the enclosing sequence.
class BindNode : public StmtNode {
 public:
  WB_NODE_FINAL(BindNode, kBind, StmtNode)
  Var var;
  PrimExpr value;
  void VisitFields(FieldVisitor* v) override;
};
using Bind = Ref<BindNode>;

class AttrStmtNode : public StmtNode {
 public:
  WB_NODE_FINAL(AttrStmtNode, kAttrStmt, StmtNode)
  ObjectRef node;
  std::string attr_key;
  PrimExpr value;
  Stmt body;
  void VisitFields(FieldVisitor* v) override;
};
using AttrStmt = Ref<AttrStmtNode>;

class AssertStmtNode : public StmtNode {
 public:
  WB_NODE_FINAL(AssertStmtNode, kAssertStmt, StmtNode)
  PrimExpr condition;
  StringImm error_kind;
  std::vector<StringImm> message_parts;
  void VisitFields(FieldVisitor* v) override;
};
using AssertStmt = Ref<AssertStmtNode>;

class BufferStoreNode : public StmtNode {
 public:
  WB_NODE_FINAL(BufferStoreNode, kBufferStore, StmtNode)
  Buffer buffer;
  PrimExpr value;
  std::vector<PrimExpr> indices;
  PrimExpr predicate;
  void VisitFields(FieldVisitor* v) override;
};
using BufferStore = Ref<BufferStoreNode>;

class AllocBufferNode : public StmtNode {
 public:
  WB_NODE_FINAL(AllocBufferNode, kAllocBuffer, StmtNode)
  Buffer buffer;
  AttrMap annotations;
  void VisitFields(FieldVisitor* v) override;
};
using AllocBuffer = Ref<AllocBufferNode>;

class DeclBufferNode : public StmtNode {
 public:
  WB_NODE_FINAL(DeclBufferNode, kDeclBuffer, StmtNode)
  Buffer buffer;
  void VisitFields(FieldVisitor* v) override;
};
using DeclBuffer = Ref<DeclBufferNode>;

enum class ForKind : int {
  kSerial = 0,
  kParallel = 1,
  kVectorized = 2,
  kUnrolled = 3,
  kThreadBinding = 4,
};
const char* ForKindName(ForKind kind);

class ForNode : public StmtNode {
 public:
  WB_NODE_FINAL(ForNode, kFor, StmtNode)
  Var loop_var;
  PrimExpr min;
  PrimExpr extent;
  ForKind kind = ForKind::kSerial;
  Stmt body;
  IterVar thread_binding;  // only for kThreadBinding
  AttrMap annotations;
  PrimExpr step;  // null: 1
  void VisitFields(FieldVisitor* v) override;
};
using For = Ref<ForNode>;

class WhileNode : public StmtNode {
 public:
  WB_NODE_FINAL(WhileNode, kWhile, StmtNode)
  PrimExpr condition;
  Stmt body;
  void VisitFields(FieldVisitor* v) override;
};
using While = Ref<WhileNode>;

class IfThenElseNode : public StmtNode {
 public:
  WB_NODE_FINAL(IfThenElseNode, kIfThenElse, StmtNode)
  PrimExpr condition;
  Stmt then_case;
  Stmt else_case;  // may be null
  void VisitFields(FieldVisitor* v) override;
};
using IfThenElse = Ref<IfThenElseNode>;

class SeqStmtNode : public StmtNode {
 public:
  WB_NODE_FINAL(SeqStmtNode, kSeqStmt, StmtNode)
  std::vector<Stmt> seq;
  void VisitFields(FieldVisitor* v) override;
};
using SeqStmt = Ref<SeqStmtNode>;

class EvaluateNode : public StmtNode {
 public:
  WB_NODE_FINAL(EvaluateNode, kEvaluate, StmtNode)
  PrimExpr value;
  void VisitFields(FieldVisitor* v) override;
};
using Evaluate = Ref<EvaluateNode>;

class BreakNode : public StmtNode {
 public:
  WB_NODE_FINAL(BreakNode, kBreak, StmtNode)
};
class ContinueNode : public StmtNode {
 public:
  WB_NODE_FINAL(ContinueNode, kContinue, StmtNode)
};

// The unit of scheduling: iteration domain, accessed regions and a body.
class SBlockNode : public StmtNode {
 public:
  WB_NODE_FINAL(SBlockNode, kSBlock, StmtNode)
  std::vector<IterVar> iter_vars;
  std::vector<BufferRegion> reads;
  std::vector<BufferRegion> writes;
  std::string name_hint;
  std::vector<Buffer> alloc_buffers;
  std::vector<MatchBufferRegion> match_buffers;
  AttrMap annotations;
  Stmt init;  // may be null
  Stmt body;
  void VisitFields(FieldVisitor* v) override;
};
using SBlock = Ref<SBlockNode>;

class SBlockRealizeNode : public StmtNode {
 public:
  WB_NODE_FINAL(SBlockRealizeNode, kSBlockRealize, StmtNode)
  std::vector<PrimExpr> iter_values;
  PrimExpr predicate;
  SBlock block;
  void VisitFields(FieldVisitor* v) override;
};
using SBlockRealize = Ref<SBlockRealizeNode>;

Stmt MakeBind(Var var, PrimExpr value, Span span = {});
Stmt MakeAttrStmt(ObjectRef node, std::string key, PrimExpr value, Stmt body, Span span = {});
Stmt MakeAssertStmt(PrimExpr condition, std::string error_kind, std::vector<std::string> parts,
                    Span span = {});
Stmt MakeBufferStore(Buffer buffer, PrimExpr value, std::vector<PrimExpr> indices,
                     PrimExpr predicate = {}, Span span = {});
Stmt MakeAllocBuffer(Buffer buffer, AttrMap annotations = {}, Span span = {});
Stmt MakeDeclBuffer(Buffer buffer, Span span = {});
Stmt MakeFor(Var loop_var, PrimExpr min, PrimExpr extent, ForKind kind, Stmt body,
             IterVar thread_binding = {}, AttrMap annotations = {}, PrimExpr step = {},
             Span span = {});
Stmt MakeWhile(PrimExpr condition, Stmt body, Span span = {});
Stmt MakeIfThenElse(PrimExpr condition, Stmt then_case, Stmt else_case = {}, Span span = {});
// A sequence; flattens nested sequences, drops no-op `T.evaluate(0)`s, and returns the single
// statement unchanged when only one remains (an empty list gives `T.evaluate(0)`).
Stmt MakeSeq(std::vector<Stmt> seq, Span span = {});
Stmt MakeEvaluate(PrimExpr value, Span span = {});
Stmt MakeBreak(Span span = {});
Stmt MakeContinue(Span span = {});
SBlock MakeSBlock(std::vector<IterVar> iter_vars, std::vector<BufferRegion> reads,
                  std::vector<BufferRegion> writes, std::string name, Stmt body, Stmt init = {},
                  std::vector<Buffer> alloc_buffers = {},
                  std::vector<MatchBufferRegion> match_buffers = {}, AttrMap annotations = {},
                  Span span = {});
Stmt MakeSBlockRealize(std::vector<PrimExpr> iter_values, PrimExpr predicate, SBlock block,
                       Span span = {});

// --- PrimFunc ----------------------------------------------------------------------------------

class PrimFuncNode : public ir::BaseFuncNode {
 public:
  WB_NODE_FINAL(PrimFuncNode, kPrimFunc, ir::BaseFuncNode)
  std::vector<Var> params;
  // Parallel to params: the buffer a handle parameter stands for, or null for scalar params.
  std::vector<Buffer> buffer_map;
  Type ret_type;  // null: no return value
  Stmt body;
  void VisitFields(FieldVisitor* v) override;
  Buffer BufferOf(const Var& param) const;
};
using PrimFunc = Ref<PrimFuncNode>;
PrimFunc MakePrimFunc(std::vector<Var> params, std::vector<Buffer> buffer_map, Stmt body,
                      Type ret_type = {}, AttrMap attrs = {}, Span span = {});

}  // namespace wb::tir
