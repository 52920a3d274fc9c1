#include "transform/tir/flatten_buffer.h"

#include <unordered_map>

#include "arith/analyzer.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/transform.h"
#include "transform/registry.h"

namespace wb::transform {

namespace {

using namespace tir;

class BufferFlattener : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;

  static PrimFunc Flatten(PrimFunc func) {
    BufferFlattener flattener;
    Stmt body = flattener.VisitStmt(func->body);
    // Parameters: the body now reads and writes flat views that alias the argument's memory.
    std::vector<Stmt> decls;
    for (const auto& buffer : func->buffer_map) {
      if (!buffer.defined()) continue;
      auto it = flattener.remap_.find(buffer.get());
      if (it != flattener.remap_.end() && !it->second.same_as(buffer)) {
        decls.push_back(MakeDeclBuffer(it->second));
      }
    }
    if (!decls.empty()) {
      decls.push_back(body);
      body = MakeSeq(std::move(decls));
    }
    if (body.same_as(func->body)) return func;
    PrimFunc copy = func;
    copy.CopyOnWrite()->body = body;
    return copy;
  }

 private:
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr visited = StmtExprMutator::VisitExpr_(op);
    const auto* load = visited.as<BufferLoadNode>();
    Buffer flat = Flattened(load->buffer);
    if (flat.same_as(load->buffer)) return visited;
    PrimExpr flat_load = MakeBufferLoad(flat, {FlatIndex(load->buffer, load->indices, load->span)},
                                        load->predicate, load->span);
    // Booleans live in int8 memory: the value read is compared back to a bool.
    if (flat->dtype != load->buffer->dtype) flat_load = MakeCast(load->dtype, flat_load, load->span);
    return flat_load;
  }

  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt visited = StmtExprMutator::VisitStmt_(op);
    const auto* store = visited.as<BufferStoreNode>();
    Buffer flat = Flattened(store->buffer);
    if (flat.same_as(store->buffer)) return visited;
    PrimExpr value = store->value;
    if (flat->dtype != store->buffer->dtype) {
      value = MakeCast(flat->dtype.with_lanes(value->dtype.lanes()), value, store->span);
    }
    return MakeBufferStore(flat, value, {FlatIndex(store->buffer, store->indices, store->span)},
                           store->predicate, store->span);
  }

  Stmt VisitStmt_(const AllocBufferNode* op) override {
    Buffer flat = Flattened(op->buffer);
    if (flat.same_as(op->buffer)) return GetRef(op);
    if (IsBool(op->buffer)) {
      // The allocation owns its pointer: it becomes an int8 pointer, for every use of it.
      Var data = MakePointerVar(op->buffer->data->name_hint, DataType::Int(8), op->buffer->scope());
      data_remap_[op->buffer->data.get()] = data;
      flat.CopyOnWrite()->data = data;
      remap_[op->buffer.get()] = flat;
    }
    return MakeAllocBuffer(flat, op->annotations, op->span);
  }

  PrimExpr VisitExpr_(const VarNode* op) override {
    auto it = data_remap_.find(op);
    return it == data_remap_.end() ? PrimExpr(GetRef(op)) : PrimExpr(it->second);
  }

  Stmt VisitStmt_(const DeclBufferNode* op) override {
    Buffer flat = Flattened(op->buffer);
    if (flat.same_as(op->buffer)) return GetRef(op);
    return MakeDeclBuffer(flat, op->span);
  }

  Stmt VisitStmt_(const ForNode* op) override {
    if (!op->step.defined() || IsConstInt(op->step, 1)) {
      analyzer_.Bind(op->loop_var, ir::MakeRange(op->min, op->extent), /*allow_override=*/true);
    }
    return StmtExprMutator::VisitStmt_(op);
  }

  Stmt VisitStmt_(const SBlockRealizeNode* op) override {
    throw ir::PassError(Diagnostic::Error("block '" + op->block->name_hint +
                                              "' is still present; FlattenBuffer runs on TIR "
                                              "without blocks: run LowerOpaqueBlock first",
                                          op->block->span));
  }
  Stmt VisitStmt_(const SBlockNode* op) override {
    throw ir::PassError(Diagnostic::Error(
        "block '" + op->name_hint + "' is still present; run LowerOpaqueBlock first", op->span));
  }

  // A buffer is already flat when it has one dimension, no strides and no element offset (and
  // is not boolean: booleans are stored as int8, as TVM's code generators expect).
  static bool IsFlat(const Buffer& buffer) {
    return buffer->shape.size() == 1 && buffer->strides.empty() && !IsBool(buffer) &&
           (!buffer->elem_offset.defined() || IsConstInt(buffer->elem_offset, 0));
  }

  static bool IsBool(const Buffer& buffer) {
    return buffer->dtype.is_bool() && buffer->dtype.lanes() == 1;
  }

  // The row-major strides of `buffer` when it declares none.
  static std::vector<PrimExpr> Strides(const Buffer& buffer) {
    if (!buffer->strides.empty()) return buffer->strides;
    std::vector<PrimExpr> strides(buffer->shape.size());
    PrimExpr s;
    for (size_t k = buffer->shape.size(); k-- > 0;) {
      strides[k] = s.defined() ? s : make_const(buffer->shape[k]->dtype, int64_t(1));
      s = s.defined() ? mul(s, buffer->shape[k]) : buffer->shape[k];
    }
    return strides;
  }

  Buffer Flattened(const Buffer& buffer) {
    auto it = remap_.find(buffer.get());
    if (it != remap_.end()) return it->second;
    Buffer flat = buffer;
    if (!IsFlat(buffer)) {
      DataType index_type = buffer->shape.empty() ? DataType::Int(32) : buffer->shape[0]->dtype;
      for (const auto& d : buffer->shape) {
        if (d->dtype.bits() > index_type.bits()) index_type = d->dtype;
      }
      PrimExpr extent;
      if (buffer->strides.empty()) {
        // Compact: the product of the extents (a 0-d buffer holds one element).
        extent = make_const(index_type, int64_t(1));
        for (const auto& d : buffer->shape) extent = mul(extent, d);
      } else {
        // Strided: one past the last element reached, (shape[k] - 1) * stride[k] summed.
        extent = make_const(index_type, int64_t(1));
        for (size_t k = 0; k < buffer->shape.size(); ++k) {
          extent = add(extent, mul(sub(buffer->shape[k], make_const(index_type, int64_t(1))),
                                   buffer->strides[k]));
        }
      }
      if (buffer->elem_offset.defined() && !IsConstInt(buffer->elem_offset, 0)) {
        extent = add(buffer->elem_offset, extent);
      }
      BufferNode* n = flat.CopyOnWrite();
      n->shape = {analyzer_.Simplify(extent)};
      n->strides.clear();
      n->elem_offset = make_const(index_type, int64_t(0));
      if (IsBool(buffer)) n->dtype = DataType::Int(8);
    }
    // A view of a boolean allocation follows it to its int8 pointer.
    if (auto data = data_remap_.find(buffer->data.get()); data != data_remap_.end()) {
      flat.CopyOnWrite()->data = data->second;
    }
    remap_[buffer.get()] = flat;
    return flat;
  }

  PrimExpr FlatIndex(const Buffer& buffer, const std::vector<PrimExpr>& indices,
                     const Span& span) {
    if (indices.size() != buffer->shape.size()) {
      throw ir::PassError(Diagnostic::Error(
          "access of " + buffer->name + " has " + std::to_string(indices.size()) +
              " indices, but the buffer has " + std::to_string(buffer->shape.size()) +
              " dimensions",
          span));
    }
    std::vector<PrimExpr> strides = Strides(buffer);
    PrimExpr index;
    for (size_t k = 0; k < indices.size(); ++k) {
      PrimExpr term = IsConstInt(strides[k], 1) ? indices[k] : mul(indices[k], strides[k]);
      index = index.defined() ? add(index, term) : term;
    }
    if (!index.defined()) index = make_const(DataType::Int(32), int64_t(0));
    if (buffer->elem_offset.defined() && !IsConstInt(buffer->elem_offset, 0)) {
      index = add(index, buffer->elem_offset);
    }
    return analyzer_.Simplify(index);
  }

  arith::Analyzer analyzer_;
  std::unordered_map<const BufferNode*, Buffer> remap_;
  std::unordered_map<const VarNode*, Var> data_remap_;
};

}  // namespace

ir::Pass FlattenBuffer() {
  return tir::CreatePrimFuncPass(
      [](PrimFunc f, const ir::IRModule&, const ir::PassContext&) {
        return BufferFlattener::Flatten(std::move(f));
      },
      0, "FlattenBuffer");
}

static PassRegistrar registrar({"FlattenBuffer",
                                "turns multi-dimensional buffer accesses into flat 1-d ones",
                                {},
                                [](const PassArgs&) { return FlattenBuffer(); }});

}  // namespace wb::transform
