// cache_read and cache_write (shared/SCHEDULE.md §2.4): a copy stage between a buffer and a new
// one in another storage scope, with the readers or the writer redirected to the new buffer.
// Names, checks, insertion points and cached regions follow TVM's cache_read_write.cc.
// reindex_cache_read / reindex_cache_write are the variants whose cache is indexed by an index
// map of the block's iters (one point per block instance) instead of the buffer's own indices.
#include "schedule/primitive/cache.h"
#include "schedule/primitive/primitives.h"

#include <unordered_set>

#include "arith/analyzer.h"
#include "schedule/block_scope.h"
#include "schedule/ir_path.h"
#include "schedule/recipe.h"
#include "schedule/region.h"
#include "schedule/schedule.h"
#include "tir/expr_text.h"
#include "tir/functor.h"
#include "tir/index_map.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace wb::schedule {

using namespace tir;

Buffer NthAccessBuffer(const char* primitive, const SBlockNode* block, int64_t index,
                       bool is_read) {
  const std::vector<BufferRegion>& regions = is_read ? block->reads : block->writes;
  int64_t n = static_cast<int64_t>(regions.size());
  if (index < 0 || index >= n) {
    throw ScheduleError(primitive, "The block " + Quote(block) + " has " + std::to_string(n) +
                                       (is_read ? " read" : " write") +
                                       " regions, so `buffer_index` is required to be in [0, " +
                                       std::to_string(n) + "). However, the input `buffer_index` is " +
                                       std::to_string(index) + ", which is out of range", block->span);
  }
  return regions[index]->buffer;
}

namespace {

void CheckStorageScope(const char* primitive, const std::string& scope) {
  if (!IsValidStorageScope(scope)) {
    throw ScheduleError(primitive, "The input storage scope \"" + scope + "\" is invalid.", Span());
  }
}

// Where the stage goes and what it copies.
struct StageInfo {
  Buffer original;  // the buffer being cached
  Buffer cache;
  const StmtNode* loc = nullptr;  // the loop or block whose body receives the stage
  size_t pos = 0;
  std::vector<Range> region;  // of `original`
  bool full = true;           // the cache has the original's shape (else: the region's)
  std::unordered_set<const SBlockNode*> consumers;
  Stmt stage;
  std::string stage_name;
  // reindex_cache_read / write: the cache's indices, the same at every access (the index map of
  // the block's iters); empty for a plain cache.
  std::vector<PrimExpr> reindex;
};

// The block of a cache stage: one copy from src[src_idx] to dst[dst_idx] over `iters`, reading
// and writing the one point. Point extents take `extent_dtype` where given, else each index's.
SBlock CopyBlock(std::vector<IterVar> iters, const Buffer& src, const std::vector<PrimExpr>& src_idx,
                 const Buffer& dst, const std::vector<PrimExpr>& dst_idx, const std::string& name,
                 DataType extent_dtype = DataType::Void()) {
  auto point = [&](const std::vector<PrimExpr>& idx) {
    std::vector<Range> out;
    for (const PrimExpr& e : idx) {
      out.push_back(ir::MakeRange(e, make_const(extent_dtype.is_void() ? e->dtype : extent_dtype, int64_t(1))));
    }
    return out;
  };
  return MakeSBlock(std::move(iters), {MakeBufferRegion(src, point(src_idx))},
                    {MakeBufferRegion(dst, point(dst_idx))}, name,
                    MakeBufferStore(dst, MakeBufferLoad(src, src_idx), dst_idx));
}

// TVM's MakeCacheStage: loops ax0.. over the region, iters v0.., one copy.
void MakeCacheStage(StageInfo* info, bool is_read) {
  std::vector<Var> loop_vars;
  std::vector<PrimExpr> values;
  for (size_t i = 0; i < info->region.size(); ++i) {
    const Range& r = info->region[i];
    Var ax = MakeVar("ax" + std::to_string(i), r->extent->dtype);
    loop_vars.push_back(ax);
    values.push_back(info->full ? add(r->min, ax) : PrimExpr(ax));
  }
  std::vector<IterVar> iters;
  std::vector<PrimExpr> orig_idx, cache_idx;
  for (size_t i = 0; i < info->region.size(); ++i) {
    const Range& r = info->region[i];
    Var v = MakeVar("v" + std::to_string(i), r->extent->dtype);
    if (info->full) {
      PrimExpr dim = info->original->shape[i];
      iters.push_back(MakeIterVar(ir::MakeRange(make_const(dim->dtype, int64_t(0)), dim), v,
                                  IterVarType::kDataPar));
      orig_idx.push_back(v);
    } else {
      iters.push_back(MakeIterVar(ir::MakeRange(make_const(r->extent->dtype, int64_t(0)),
                                                r->extent),
                                  v, IterVarType::kDataPar));
      orig_idx.push_back(add(r->min, v));
    }
    cache_idx.push_back(v);
  }
  const Buffer& src = is_read ? info->original : info->cache;
  const Buffer& dst = is_read ? info->cache : info->original;
  SBlock block = CopyBlock(iters, src, is_read ? orig_idx : cache_idx, dst,
                           is_read ? cache_idx : orig_idx, info->stage_name);
  Stmt body = MakeSBlockRealize(values, make_const(DataType::Bool(), int64_t(1)), block);
  for (size_t i = loop_vars.size(); i-- > 0;) {
    body = MakeFor(loop_vars[i], make_const(info->region[i]->extent->dtype, int64_t(0)),
                   info->region[i]->extent, ForKind::kSerial, body);
  }
  info->stage = body;
}

// TVM's CacheLocDetector: the deepest sequence in which the writer and then the first related
// block have been seen; the stage goes right before the child holding the related block.
class CacheLocDetector : public StmtVisitor {
 public:
  CacheLocDetector(const SBlockNode* scope, const SBlockNode* writer,
                   std::unordered_set<const SBlockNode*> related)
      : scope_(scope), writer_(writer), related_(std::move(related)) {}
  using StmtVisitor::VisitStmt_;

  void VisitStmt_(const SeqStmtNode* op) override {
    bool previous = visited_block_;
    visited_block_ = false;
    for (size_t i = 0; i < op->seq.size(); ++i) {
      if (pos_ != -1) break;
      VisitStmt(op->seq[i]);
      if (visited_block_ && visited_related_ && pos_ == -1) {
        pos_ = static_cast<int>(i);
        break;
      }
      if (visited_related_) break;
    }
    visited_block_ = visited_block_ || previous;
  }
  void VisitStmt_(const SBlockNode* op) override {
    if (op == scope_) {
      StmtVisitor::VisitStmt_(op);
      if (visited_related_ && !loc_) {
        loc_ = op;
        if (!visited_block_ && pos_ == -1) pos_ = 0;
      }
      return;
    }
    if (op == writer_) {
      visited_block_ = true;
      return;
    }
    if (related_.count(op)) visited_related_ = true;
  }
  void VisitStmt_(const ForNode* op) override {
    StmtVisitor::VisitStmt_(op);
    if (visited_block_ && visited_related_ && !loc_ && pos_ != -1) loc_ = op;
  }

  const StmtNode* loc_ = nullptr;
  int pos_ = -1;

 private:
  const SBlockNode* scope_;
  const SBlockNode* writer_;
  std::unordered_set<const SBlockNode*> related_;
  bool visited_block_ = false;
  bool visited_related_ = false;
};

void DetectLocation(const SBlock& scope, const SBlock& writer,
                    const std::unordered_set<const SBlockNode*>& related, StageInfo* info) {
  if (related.empty()) {
    info->loc = scope.get();
    const auto* seq = scope->body.as<SeqStmtNode>();
    info->pos = seq ? seq->seq.size() : 1;
    return;
  }
  CacheLocDetector detector(scope.get(), writer.get(), related);
  detector(scope);
  info->loc = detector.loc_ ? detector.loc_ : scope.get();
  info->pos = detector.pos_ < 0 ? 0 : static_cast<size_t>(detector.pos_);
}

// Regions and match_buffers of `from` moved to `to` (compact caches shift by the region's min).
class BufferRedirect {
 public:
  BufferRedirect(const StageInfo* info, Buffer from, Buffer to)
      : info_(info), from_(std::move(from)), to_(std::move(to)) {}

  std::vector<PrimExpr> Indices(const std::vector<PrimExpr>& indices) {
    if (!info_->reindex.empty()) return info_->reindex;
    if (info_->full) return indices;
    std::vector<PrimExpr> out;
    for (size_t i = 0; i < indices.size(); ++i) out.push_back(Shifted(indices[i], i));
    return out;
  }
  // `index` less the region's min in dimension `d`. A constant min takes the index's type, so
  // that an int32 index into an int64-shaped buffer stays int32 (TVM's region min is the
  // access's own type there).
  PrimExpr Shifted(const PrimExpr& index, size_t d) {
    PrimExpr min = info_->region[d]->min;
    if (const int64_t* c = AsConstInt(min)) min = make_const(index->dtype, *c);
    return analyzer_.Simplify(sub(index, min));
  }
  std::vector<BufferRegion> Regions(const std::vector<BufferRegion>& regions) {
    std::vector<BufferRegion> out;
    for (const BufferRegion& r : regions) out.push_back(Region(r));
    return out;
  }
  BufferRegion Region(const BufferRegion& r) {
    if (!r->buffer.same_as(from_)) return r;
    if (!info_->reindex.empty()) {
      std::vector<Range> point;
      for (const PrimExpr& e : info_->reindex) {
        point.push_back(ir::MakeRange(e, make_const(DataType::Int(32), int64_t(1))));
      }
      return MakeBufferRegion(to_, point);
    }
    std::vector<Range> ranges = r->region;
    if (!info_->full) {
      for (size_t i = 0; i < ranges.size(); ++i) {
        ranges[i] = ir::MakeRange(Shifted(ranges[i]->min, i), ranges[i]->extent);
      }
    }
    return MakeBufferRegion(to_, ranges);
  }
  std::vector<MatchBufferRegion> Matches(const std::vector<MatchBufferRegion>& matches) {
    std::vector<MatchBufferRegion> out;
    for (const MatchBufferRegion& m : matches) {
      out.push_back(m->source->buffer.same_as(from_)
                        ? MakeMatchBufferRegion(m->buffer, Region(m->source))
                        : m);
    }
    return out;
  }

 private:
  const StageInfo* info_;
  Buffer from_;
  Buffer to_;
  arith::Analyzer analyzer_;
};

SBlock WithBody(const SBlock& block, Stmt body) {
  SBlock out = block;
  out.CopyOnWrite()->body = std::move(body);
  return out;
}

// TVM's CacheReadRewriter: consumers load from the cache; the writer is left alone.
class CacheReadRewriter : public StmtExprMutator {
 public:
  CacheReadRewriter(const SBlockNode* scope, const StageInfo* info)
      : scope_(scope), info_(info), redirect_(info, info->original, info->cache) {}
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;

  Stmt VisitStmt_(const ForNode* op) override {
    Stmt s = StmtMutator::VisitStmt_(op);
    if (op == info_->loc) {
      For loop = Downcast<ForNode>(s);
      loop.CopyOnWrite()->body = InsertStmt(loop->body, info_->pos, info_->stage);
      return loop;
    }
    return s;
  }
  Stmt VisitStmt_(const SBlockNode* op) override {
    bool is_consumer = info_->consumers.empty() || info_->consumers.count(op);
    if (op != scope_ && FindRegion(op->writes, info_->original).defined()) return GetRef(op);
    bool saved = consumes_;
    consumes_ = is_consumer;
    SBlock block = Downcast<SBlockNode>(StmtMutator::VisitStmt_(op));
    consumes_ = saved;
    if (op == info_->loc) block = WithBody(block, InsertStmt(block->body, info_->pos, info_->stage));
    if (op == scope_) {
      block.CopyOnWrite()->alloc_buffers.push_back(info_->cache);
    } else if (is_consumer) {
      SBlockNode* n = block.CopyOnWrite();
      n->reads = redirect_.Regions(n->reads);
      n->match_buffers = redirect_.Matches(n->match_buffers);
    }
    return block;
  }
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = ExprMutator::VisitExpr_(op);
    const auto* load = e.as<BufferLoadNode>();
    if (consumes_ && load && load->buffer.same_as(info_->original)) {
      return MakeBufferLoad(info_->cache, redirect_.Indices(load->indices), load->predicate);
    }
    return e;
  }
  // An opaque use of the buffer's data (`T.tvm_access_ptr(..., A.data, ...)`) reads the cache too.
  PrimExpr VisitExpr_(const VarNode* op) override {
    if (op == info_->original->data.get()) return info_->cache->data;
    return GetRef(op);
  }

 private:
  const SBlockNode* scope_;
  const StageInfo* info_;
  BufferRedirect redirect_;
  bool consumes_ = false;
};

// TVM's CacheWriteRewriter: the writer (and what it nests) writes the cache; listed consumers
// read it.
class CacheWriteRewriter : public StmtExprMutator {
 public:
  CacheWriteRewriter(const SBlockNode* scope, const SBlockNode* writer, const StageInfo* info)
      : scope_(scope), writer_(writer), info_(info), redirect_(info, info->original, info->cache) {}
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;

  Stmt VisitStmt_(const ForNode* op) override {
    Stmt s = StmtMutator::VisitStmt_(op);
    if (op == info_->loc) {
      For loop = Downcast<ForNode>(s);
      loop.CopyOnWrite()->body = InsertStmt(loop->body, info_->pos, info_->stage);
      return loop;
    }
    return s;
  }
  Stmt VisitStmt_(const SBlockNode* op) override {
    if (info_->consumers.count(op)) {
      SBlock block = GetRef(op);
      SBlockNode* n = block.CopyOnWrite();
      n->writes = redirect_.Regions(op->writes);
      n->reads = redirect_.Regions(op->reads);
      n->match_buffers = redirect_.Matches(op->match_buffers);
      bool saved = active_;
      active_ = true;
      n->body = VisitStmt(op->body);
      active_ = saved;
      return block;
    }
    if (op != writer_ && op != scope_ && !under_writer_) return GetRef(op);
    bool saved_under = under_writer_;
    bool saved_active = active_;
    under_writer_ = under_writer_ || op == writer_;
    active_ = under_writer_;
    SBlock block = Downcast<SBlockNode>(StmtMutator::VisitStmt_(op));
    under_writer_ = saved_under;
    active_ = saved_active;
    if (op == info_->loc) block = WithBody(block, InsertStmt(block->body, info_->pos, info_->stage));
    if (op == scope_) {
      block.CopyOnWrite()->alloc_buffers.push_back(info_->cache);
    } else {
      SBlockNode* n = block.CopyOnWrite();
      n->writes = redirect_.Regions(n->writes);
      n->reads = redirect_.Regions(n->reads);
      n->match_buffers = redirect_.Matches(n->match_buffers);
    }
    return block;
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt s = StmtMutator::VisitStmt_(op);
    const auto* store = s.as<BufferStoreNode>();
    if (active_ && store && store->buffer.same_as(info_->original)) {
      return MakeBufferStore(info_->cache, store->value, redirect_.Indices(store->indices),
                             store->predicate, store->span);
    }
    return s;
  }
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = ExprMutator::VisitExpr_(op);
    const auto* load = e.as<BufferLoadNode>();
    if (active_ && load && load->buffer.same_as(info_->original)) {
      return MakeBufferLoad(info_->cache, redirect_.Indices(load->indices), load->predicate);
    }
    return e;
  }
  PrimExpr VisitExpr_(const VarNode* op) override {
    if (active_ && op == info_->original->data.get()) return info_->cache->data;
    return GetRef(op);
  }

 private:
  const SBlockNode* scope_;
  const SBlockNode* writer_;
  const StageInfo* info_;
  BufferRedirect redirect_;
  bool under_writer_ = false;
  bool active_ = false;
};

std::unordered_set<const SBlockNode*> ConsumerSet(Schedule& sch,
                                                  const std::vector<SBlockRV>& consumers) {
  std::unordered_set<const SBlockNode*> out;
  for (const SBlockRV& rv : consumers) {
    SBlock b = sch.Get(rv);
    out.insert(b.get());
    for (const SBlock& child : ChildBlocks(b)) out.insert(child.get());
  }
  return out;
}

std::vector<PrimExpr> Extents(const std::vector<Range>& region) {
  std::vector<PrimExpr> out;
  for (const Range& r : region) out.push_back(r->extent);
  return out;
}

Instruction CacheInstruction(const char* method, const char* index_key, const SBlockRV& block,
                             int index, const std::string& scope,
                             const std::vector<SBlockRV>& consumers) {
  Instruction inst{method,
                   {{"block", TraceValue::Block(block.id)},
                    {index_key, TraceValue::Int(index)},
                    {"storage_scope", TraceValue::String(scope)}},
                   {},
                   false};
  if (!consumers.empty()) {
    std::vector<TraceValue> list;
    for (const SBlockRV& c : consumers) list.push_back(TraceValue::Block(c.id));
    inst.args.push_back({"consumer_blocks", TraceValue::List(list)});
  }
  return inst;
}

}  // namespace

namespace {

// The predicate of the one nested block under which `block` reads `buffer`, when every load of
// the buffer in the block's body is inside that nested block and the predicate is not trivial;
// else null.
PrimExpr NestedReadGuard(const SBlockNode* block, const Buffer& buffer) {
  auto loads_in = [&](const Stmt& s) {
    int n = 0;
    PostOrderVisit(s, [&](const ir::Object* o) {
      const auto* load = NodeAs<BufferLoadNode>(o);
      n += load && load->buffer.same_as(buffer);
    });
    return n;
  };
  int total = loads_in(block->body);
  if (total == 0) return {};
  PrimExpr guard;
  int guarded = 0, readers = 0;
  PostOrderVisit(block->body, [&](const ir::Object* o) {
    const auto* realize = NodeAs<SBlockRealizeNode>(o);
    if (!realize) return;
    int n = loads_in(realize->block->body);
    if (n == 0) return;
    ++readers;
    if (!IsConstInt(realize->predicate, 1) && n == total) {
      guard = realize->predicate;
      guarded = n;
    }
  });
  return readers == 1 && guarded == total ? guard : PrimExpr();
}

}  // namespace

SBlockRV Schedule::CacheRead(const SBlockRV& block_rv, int read_buffer_index,
                             const std::string& storage_scope,
                             const std::vector<SBlockRV>& consumer_blocks) {
  const char* prim = "cache-read";
  CheckStorageScope(prim, storage_scope);
  SBlock block = Get(block_rv);
  PrimFunc func = Func();
  StageInfo info;
  info.original = NthAccessBuffer(prim, block.get(), read_buffer_index, true);
  SBlock scope = GetScopeRoot(*this, prim, block.get(), false);
  BlockScope deps(scope);
  for (const SBlock& child : deps.ReadersOf(info.original.get())) {
    if (!HasRegionCover(func, deps, child.get(), info.original.get())) {
      throw ScheduleError(prim, "The scope " + Quote(scope.get()) +
                                    " 's region cover is not complete.\nThe region cover "
                                    "property require to hold for every of its child blocks", scope->span);
    }
  }
  std::vector<SBlock> writers = deps.WritersOf(info.original.get());
  if (writers.size() > 1) {
    throw ScheduleError(prim, "The buffer " + info.original->name +
                                  " is expected to be written by single block, but got " +
                                  std::to_string(writers.size()) + " blocks who write it.", block->span);
  }
  info.consumers = ConsumerSet(*this, consumer_blocks);
  arith::Analyzer analyzer;
  if (!writers.empty()) {
    const SBlock& writer = writers[0];
    std::unordered_set<const SBlockNode*> related = info.consumers;
    if (related.empty()) {
      for (const Dependency& d : deps.DepsBySrc(writer.get())) {
        if (d.kind == DepKind::kRAW) related.insert(d.dst.get());
      }
    }
    DetectLocation(scope, writer, related, &info);
    info.region = RelaxRegion(func, writer.get(), FindRegion(writer->writes, info.original),
                              info.loc, &analyzer);
  } else {
    info.loc = scope.get();
    info.pos = 0;
    BufferRegion scope_region = FindRegion(scope->reads, info.original);
    BufferRegion own = FindRegion(block->reads, info.original);
    PrimExpr guard = NestedReadGuard(block.get(), info.original);
    if (own.defined() && guard.defined()) {
      // As TVM: the block reads the buffer only under a nested block's guard (`T.where(vi < 10)`),
      // so the cache holds what the guard lets through.
      info.region = RelaxRegion(func, block.get(), own, scope.get(), &analyzer, /*clip=*/true,
                                /*relax_threads=*/false, guard);
    } else {
      info.region =
          scope_region.defined() ? scope_region->region : FullRegion(info.original)->region;
    }
  }
  // A cache stage under a loop must keep the original indexing: other iterations use it too.
  info.full = !ir::IsInstance<SBlockNode>(info.loc);
  info.cache = WithScope(info.original, storage_scope,
                         info.full ? std::vector<PrimExpr>{} : Extents(info.region));
  info.stage_name = UniqueBlockName(func, info.original->name + "_" + storage_scope);
  MakeCacheStage(&info, /*is_read=*/true);
  Stmt new_scope = CacheReadRewriter(scope.get(), &info)(scope);
  Replace(scope.get(), new_scope);
  SBlockRV out = NewBlockRV(info.stage_name);
  Instruction inst = CacheInstruction("cache_read", "read_buffer_index", block_rv,
                                      read_buffer_index, storage_scope, consumer_blocks);
  inst.outputs.push_back(TraceValue::Block(out.id));
  Record(std::move(inst));
  return out;
}

SBlockRV Schedule::CacheWrite(const SBlockRV& block_rv, int write_buffer_index,
                              const std::string& storage_scope,
                              const std::vector<SBlockRV>& consumer_blocks) {
  const char* prim = "cache-write";
  CheckStorageScope(prim, storage_scope);
  SBlock block = Get(block_rv);
  PrimFunc func = Func();
  StageInfo info;
  info.original = NthAccessBuffer(prim, block.get(), write_buffer_index, false);
  SBlock scope = GetScopeRoot(*this, prim, block.get(), false);
  BlockScope deps(scope);
  std::vector<SBlock> writers = deps.WritersOf(info.original.get());
  if (writers.size() != 1) {
    throw ScheduleError(prim, "The buffer " + info.original->name +
                                  " is expected to be written by single block, but got " +
                                  std::to_string(writers.size()) + " blocks who write it.", block->span);
  }
  info.consumers = ConsumerSet(*this, consumer_blocks);
  std::unordered_set<const SBlockNode*> related;
  for (const Dependency& d : deps.DepsBySrc(block.get())) {
    if (d.kind == DepKind::kRAW && !info.consumers.count(d.dst.get())) related.insert(d.dst.get());
  }
  DetectLocation(scope, block, related, &info);
  arith::Analyzer analyzer;
  info.region = RelaxRegion(func, block.get(), FindRegion(block->writes, info.original), info.loc,
                            &analyzer);
  info.full = !ir::IsInstance<SBlockNode>(info.loc);
  info.cache = WithScope(info.original, storage_scope,
                         info.full ? std::vector<PrimExpr>{} : Extents(info.region));
  info.stage_name = UniqueBlockName(func, info.original->name + "_" + storage_scope);
  MakeCacheStage(&info, /*is_read=*/false);
  Stmt new_scope = CacheWriteRewriter(scope.get(), block.get(), &info)(scope);
  Replace(scope.get(), new_scope);
  SBlockRV out = NewBlockRV(info.stage_name);
  Instruction inst = CacheInstruction("cache_write", "write_buffer_index", block_rv,
                                      write_buffer_index, storage_scope, consumer_blocks);
  inst.outputs.push_back(TraceValue::Block(out.id));
  Record(std::move(inst));
  return out;
}


namespace {

// cache_inplace's rewrite: the block (and what it nests) reads and writes the cache instead of
// the buffer; `loc`'s body gets the copy-in stage before the block's statement and the copy-out
// after it; the scope allocates the cache.
class CacheInplaceRewriter : public StmtExprMutator {
 public:
  CacheInplaceRewriter(const SBlockNode* scope, const SBlockNode* block, const StmtNode* loc,
                       size_t pos, Buffer buffer, Buffer cache, Stmt copy_in, Stmt copy_out)
      : scope_(scope),
        block_(block),
        loc_(loc),
        pos_(pos),
        buffer_(std::move(buffer)),
        cache_(std::move(cache)),
        copy_in_(std::move(copy_in)),
        copy_out_(std::move(copy_out)) {}
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;

  Stmt VisitStmt_(const ForNode* op) override {
    Stmt s = StmtMutator::VisitStmt_(op);
    if (op != loc_) return s;
    For loop = Downcast<ForNode>(s);
    loop.CopyOnWrite()->body = Insert(loop->body);
    return loop;
  }
  Stmt VisitStmt_(const SBlockNode* op) override {
    bool saved = active_;
    active_ = active_ || op == block_;
    SBlock block = Downcast<SBlockNode>(StmtMutator::VisitStmt_(op));
    active_ = saved;
    if (op == loc_) block = WithBody(block, Insert(block->body));
    if (op == scope_) block.CopyOnWrite()->alloc_buffers.push_back(cache_);
    if (active_ || op == block_) {
      SBlockNode* n = block.CopyOnWrite();
      n->reads = Redirect(n->reads);
      n->writes = Redirect(n->writes);
      for (MatchBufferRegion& m : n->match_buffers) {
        if (m->source->buffer.same_as(buffer_)) {
          m = MakeMatchBufferRegion(m->buffer, MakeBufferRegion(cache_, m->source->region));
        }
      }
    }
    return block;
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt s = StmtMutator::VisitStmt_(op);
    const auto* store = s.as<BufferStoreNode>();
    if (!active_ || !store || !store->buffer.same_as(buffer_)) return s;
    return MakeBufferStore(cache_, store->value, store->indices, store->predicate, store->span);
  }
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = ExprMutator::VisitExpr_(op);
    const auto* load = e.as<BufferLoadNode>();
    if (!active_ || !load || !load->buffer.same_as(buffer_)) return e;
    return MakeBufferLoad(cache_, load->indices, load->predicate);
  }
  PrimExpr VisitExpr_(const VarNode* op) override {
    // An opaque use (`B.data` handed to an extern call) moves to the cache too.
    if (active_ && op == buffer_->data.get()) return cache_->data;
    return GetRef(op);
  }

 private:
  Stmt Insert(const Stmt& body) {
    return InsertStmt(InsertStmt(body, pos_ + 1, copy_out_), pos_, copy_in_);
  }
  std::vector<BufferRegion> Redirect(const std::vector<BufferRegion>& regions) {
    std::vector<BufferRegion> out;
    for (const BufferRegion& r : regions) {
      out.push_back(r->buffer.same_as(buffer_) ? MakeBufferRegion(cache_, r->region) : r);
    }
    return out;
  }

  const SBlockNode* scope_;
  const SBlockNode* block_;
  const StmtNode* loc_;
  size_t pos_;
  Buffer buffer_, cache_;
  Stmt copy_in_, copy_out_;
  bool active_ = false;
};

}  // namespace

std::vector<SBlockRV> CacheInplace(Schedule& sch, const SBlockRV& block_rv, int read_buffer_index,
                                   const std::string& storage_scope) {
  const char* prim = "cache-buffer";
  CheckStorageScope(prim, storage_scope);
  SBlock block = sch.Get(block_rv);
  PrimFunc func = sch.Func();
  Buffer buffer = NthAccessBuffer(prim, block.get(), read_buffer_index, true);
  SBlock scope = GetScopeRoot(sch, prim, block.get(), false);
  BlockScope deps(scope);
  for (const SBlock& child : deps.ReadersOf(buffer.get())) {
    if (!HasRegionCover(func, deps, child.get(), buffer.get())) {
      throw ScheduleError(prim, "The scope " + Quote(scope.get()) +
                                    " 's region cover is not complete.\nThe region cover "
                                    "property require to hold for every of its child blocks",
                          scope->span);
    }
  }
  BufferRegion read = FindRegion(block->reads, buffer);
  BufferRegion write = FindRegion(block->writes, buffer);
  if (!read.defined() || !write.defined()) {
    throw ScheduleError(prim, "The target block " + Quote(block.get()) +
                                  " does not both read & write target buffer " + buffer->name +
                                  ".",
                        block->span);
  }
  // TVM's CacheInplaceLocDetector: the innermost loop around the block (else the scope), just
  // before the statement of its body that holds the block.
  std::vector<const StmtNode*> path = PathIn(func, block.get());
  const StmtNode* loc = scope.get();
  size_t pos = 0;
  bool pos_found = false;
  for (size_t i = path.size() - 1; i-- > 0;) {
    if (path[i] == scope.get()) break;
    if (auto* seq = NodeAs<SeqStmtNode>(path[i]); seq && !pos_found) {
      for (size_t k = 0; k < seq->seq.size(); ++k) {
        if (seq->seq[k].get() == path[i + 1]) pos = k;
      }
      pos_found = true;
    }
    if (NodeAs<ForNode>(path[i])) {
      loc = path[i];
      break;
    }
  }
  // The copy-in covers what the block writes too, so that the copy-out never writes back values
  // the block did not produce.
  arith::Analyzer analyzer;
  std::vector<Range> read_region = RelaxRegion(func, block.get(), read, loc, &analyzer);
  std::vector<Range> write_region = RelaxRegion(func, block.get(), write, loc, &analyzer);
  Buffer cache = WithScope(buffer, storage_scope);
  std::string in_name = UniqueBlockName(func, buffer->name + "_" + storage_scope);
  std::string out_name = in_name;
  for (int k = 1; out_name == in_name; ++k) {
    out_name = UniqueBlockName(func, buffer->name + "_" + storage_scope + "_" + std::to_string(k));
  }
  StageInfo in;
  in.original = buffer;
  in.cache = cache;
  in.region = RegionHull(read_region, write_region, &analyzer);
  in.stage_name = in_name;
  MakeCacheStage(&in, /*is_read=*/true);
  StageInfo out = in;
  out.region = write_region;
  out.stage_name = out_name;
  MakeCacheStage(&out, /*is_read=*/false);
  Stmt new_scope = CacheInplaceRewriter(scope.get(), block.get(), loc, pos, buffer, cache,
                                        in.stage, out.stage)(scope);
  sch.Replace(scope.get(), new_scope);
  std::vector<SBlockRV> stages = {sch.NewBlockRV(in_name), sch.NewBlockRV(out_name)};
  sch.Record({"cache_inplace",
              {{"block", TraceValue::Block(block_rv.id)},
               {"read_buffer_index", TraceValue::Int(read_buffer_index)},
               {"storage_scope", TraceValue::String(storage_scope)}},
              {TraceValue::Block(stages[0].id), TraceValue::Block(stages[1].id)},
              true});
  return stages;
}

namespace {

std::unordered_set<const VarNode*> VarSet(const std::vector<PrimExpr>& exprs) {
  std::unordered_set<const VarNode*> out;
  for (const PrimExpr& e : exprs) {
    PostOrderVisit(e, [&](const ir::Object* n) {
      if (auto* v = dynamic_cast<const VarNode*>(n)) out.insert(v);
    });
  }
  return out;
}

std::string IndicesText(const std::vector<PrimExpr>& indices) {
  std::string out = "[";
  for (size_t i = 0; i < indices.size(); ++i) out += (i ? ", " : "") + ExprText(indices[i]);
  return out + "]";
}

// TVM's reindex cache stage (MakeReindexCacheStage): the block's iters that index the buffer,
// copied with the loops between the block and the stage's location that bind them; one copy
// between the buffer at the block's indices and the cache at the mapped ones.
void MakeReindexCacheStage(const Schedule& sch, const SBlock& block, const BufferRegion& region,
                           const IndexMap& index_map, const std::string& storage_scope,
                           const char* prim, bool is_read, StageInfo* info) {
  PrimFunc func = sch.Func();
  const SBlockRealizeNode* realize = RealizeOf(func, block.get());
  std::vector<PrimExpr> iters, shape;
  for (const IterVar& iv : block->iter_vars) {
    iters.push_back(iv->var);
    shape.push_back(iv->dom->extent);
  }
  std::vector<PrimExpr> new_indices = MapIndices(index_map, iters);
  std::vector<PrimExpr> old_indices;
  for (const Range& r : region->region) old_indices.push_back(r->min);
  std::unordered_set<const VarNode*> in_old = VarSet(old_indices), in_new = VarSet(new_indices);
  std::vector<IterVar> used_iters;
  std::vector<PrimExpr> used_values;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    const IterVar& iv = block->iter_vars[i];
    bool old_has = in_old.count(iv->var.get()), new_has = in_new.count(iv->var.get());
    if (old_has != new_has) {
      throw ScheduleError(prim, "Error when applying " + std::string(prim) + " on block " +
                                    Quote(block.get()) + ", the block itervar " +
                                    iv->var->name_hint + " appears in " +
                                    IndicesText(old_has ? old_indices : new_indices) +
                                    ", but not in " +
                                    IndicesText(old_has ? new_indices : old_indices) + ".",
                          block->span);
    }
    if (new_has) {
      used_iters.push_back(iv);
      used_values.push_back(realize->iter_values[i]);
    }
  }
  std::unordered_set<const VarNode*> bound = VarSet(used_values);
  std::vector<For> loops;
  for (const StmtNode* n : PathIn(func, block.get())) {
    if (n == info->loc) {
      loops.clear();
      continue;
    }
    if (auto* f = NodeAs<ForNode>(n); f && bound.count(f->loop_var.get())) loops.push_back(GetRef(f));
  }
  VarMap vmap;
  std::vector<Var> loop_vars;
  for (const For& f : loops) {
    Var v = MakeVar(f->loop_var->name_hint, f->loop_var->dtype);
    vmap[f->loop_var.get()] = v;
    loop_vars.push_back(v);
  }
  std::vector<IterVar> stage_iters;
  std::vector<PrimExpr> stage_values;
  for (size_t i = 0; i < used_iters.size(); ++i) {
    const IterVar& iv = used_iters[i];
    Var v = MakeVar(iv->var->name_hint, iv->var->dtype);
    stage_values.push_back(Substitute(used_values[i], vmap));
    vmap[iv->var.get()] = v;
    stage_iters.push_back(MakeIterVar(iv->dom, v, IterVarType::kDataPar));
  }
  std::vector<PrimExpr> buf_idx, cache_idx;
  for (const PrimExpr& e : old_indices) buf_idx.push_back(Substitute(e, vmap));
  for (const PrimExpr& e : new_indices) cache_idx.push_back(Substitute(e, vmap));
  info->cache = WithScope(info->original, storage_scope, MapShape(index_map, shape));
  const Buffer& src = is_read ? info->original : info->cache;
  const Buffer& dst = is_read ? info->cache : info->original;
  SBlock stage = CopyBlock(stage_iters, src, is_read ? buf_idx : cache_idx, dst,
                           is_read ? cache_idx : buf_idx, info->stage_name, DataType::Int(32));
  Stmt body = MakeSBlockRealize(stage_values, make_const(DataType::Bool(), int64_t(1)), stage);
  for (size_t i = loops.size(); i-- > 0;) {
    body = MakeFor(loop_vars[i], loops[i]->min, loops[i]->extent, ForKind::kSerial, body);
  }
  info->stage = body;
  info->reindex = new_indices;
}

void CheckSinglePoint(const char* prim, const SBlock& block, const BufferRegion& region) {
  for (const Range& r : region->region) {
    auto* e = r->extent.as<IntImmNode>();
    if (!e || e->value != 1) {
      throw ScheduleError(prim, "The buffer region " + RegionText(region) +
                                    " accessed inside block " + Quote(block.get()) +
                                    " is not a single point, which violates the prerequisite of " +
                                    prim + " primitive.",
                          block->span);
    }
  }
}

}  // namespace

SBlockRV ReindexCache(Schedule& sch, const SBlockRV& block_rv, int buffer_index,
                      const std::string& storage_scope, const IndexMap& index_map, bool is_read) {
  const char* prim = is_read ? "reindex_cache_read" : "reindex_cache_write";
  CheckStorageScope(prim, storage_scope);
  SBlock block = sch.Get(block_rv);
  PrimFunc func = sch.Func();
  StageInfo info;
  info.original = NthAccessBuffer(prim, block.get(), buffer_index, is_read);
  SBlock scope = GetScopeRoot(sch, prim, block.get(), true);
  BlockScope deps(scope);
  std::vector<SBlock> writers = deps.WritersOf(info.original.get());
  BufferRegion region = FindRegion(is_read ? block->reads : block->writes, info.original);
  if (is_read) {
    info.consumers.insert(block.get());
    if (writers.size() == 1) {
      DetectLocation(scope, writers[0], info.consumers, &info);
    } else {
      info.loc = scope.get();
      info.pos = 0;
    }
    CheckSinglePoint(prim, block, region);
  } else {
    if (writers.size() != 1 || writers[0].get() != block.get()) {
      throw ScheduleError(prim, "The buffer " + info.original->name +
                                    " is expected to be written by single block, but got " +
                                    std::to_string(writers.size()) + " blocks who write it.",
                          block->span);
    }
    std::unordered_set<const SBlockNode*> related;
    for (const Dependency& d : deps.DepsBySrc(block.get())) {
      if (d.kind == DepKind::kRAW) related.insert(d.dst.get());
    }
    DetectLocation(scope, block, related, &info);
  }
  info.stage_name = UniqueBlockName(func, info.original->name + "_" + storage_scope);
  MakeReindexCacheStage(sch, block, region, index_map, storage_scope, prim, is_read, &info);
  if (!is_read) CheckSinglePoint(prim, block, region);
  Stmt new_scope = is_read ? CacheReadRewriter(scope.get(), &info)(scope)
                           : CacheWriteRewriter(scope.get(), block.get(), &info)(scope);
  sch.Replace(scope.get(), new_scope);
  SBlockRV out = sch.NewBlockRV(info.stage_name);
  sch.Record({is_read ? "reindex_cache_read" : "reindex_cache_write",
              {{"block", TraceValue::Block(block_rv.id)},
               {is_read ? "read_buffer_index" : "write_buffer_index", TraceValue::Int(buffer_index)},
               {"storage_scope", TraceValue::String(storage_scope)},
               {"index_map", TraceValue::Raw(IndexMapLambdaText(index_map))}},
              {TraceValue::Block(out.id)},
              false});
  return out;
}


namespace {

// A buffer index argument: an integer, or (as TVM's Python API allows) the buffer's name.
int BufferIndexArg(Schedule& sch, RecipeArgs& args, const SBlockRV& block, const char* key,
                   bool is_read) {
  const RecipeValue& v = args.Require(key);
  if (v.kind == RecipeValue::Kind::kString) {
    SBlock b = sch.Get(block);
    const std::vector<BufferRegion>& regions = is_read ? b->reads : b->writes;
    int found = -1;
    for (size_t i = 0; i < regions.size(); ++i) {
      if (regions[i]->buffer->name != v.s) continue;
      if (found != -1) {
        throw RecipeError{"the block reads or writes more than one buffer named " + v.s,
                          v.begin, v.end};
      }
      found = static_cast<int>(i);
    }
    if (found < 0) {
      throw RecipeError{std::string("the block has no ") + (is_read ? "read" : "write") +
                            " buffer named " + v.s,
                        v.begin, v.end};
    }
    return found;
  }
  return static_cast<int>(args.IntOf(v, key));
}

RecipeMethod CacheMethod(bool is_read) {
  const char* key = is_read ? "read_buffer_index" : "write_buffer_index";
  return {{"block", key, "storage_scope", "consumer_blocks"}, false, RecipeReturns::kSingle,
          [is_read, key](Schedule& sch, RecipeArgs& args) -> std::vector<RecipeRV> {
            SBlockRV block = args.Block("block");
            int index = BufferIndexArg(sch, args, block, key, is_read);
            std::string scope = args.String("storage_scope");
            std::vector<SBlockRV> consumers = args.BlockList("consumer_blocks");
            if (is_read) return {sch.CacheRead(block, index, scope, consumers)};
            return {sch.CacheWrite(block, index, scope, consumers)};
          }};
}

RecipeDoc CacheDoc(bool is_read) {
  return {"caching",
          is_read ? "read a buffer through a new cache stage in another scope"
                  : "write a buffer through a new cache stage in another scope",
          {{"block", RecipeParamKind::kBlock,
            is_read ? "the block reading the buffer" : "the block writing the buffer", ""},
           {is_read ? "read_buffer_index" : "write_buffer_index",
            is_read ? RecipeParamKind::kReadBuffer : RecipeParamKind::kWriteBuffer,
            is_read ? "the buffer to cache (one the block reads)"
                    : "the buffer to cache (one the block writes)",
            ""},
           {"storage_scope", RecipeParamKind::kStorageScope, "the cache's scope, e.g. shared", ""},
           {"consumer_blocks", RecipeParamKind::kBlockList,
            is_read ? "only these readers use the cache (default: all)"
                    : "only these readers read the cache (default: all)",
            "None"}}};
}
RecipeMethodRegistrar reg_cache_read("cache_read", CacheMethod(true), CacheDoc(true));
RecipeMethodRegistrar reg_cache_inplace(
    "cache_inplace",
    {{"block", "read_buffer_index", "storage_scope"}, false, RecipeReturns::kList,
     [](Schedule& sch, RecipeArgs& args) -> std::vector<RecipeRV> {
       SBlockRV block = args.Block("block");
       int index = BufferIndexArg(sch, args, block, "read_buffer_index", true);
       std::vector<SBlockRV> stages =
           CacheInplace(sch, block, index, args.String("storage_scope"));
       return {stages[0], stages[1]};
     }},
    {"caching",
     "read and write a buffer the block updates in place through a cache around the block",
     {{"block", RecipeParamKind::kBlock, "the block reading and writing the buffer", ""},
      {"read_buffer_index", RecipeParamKind::kReadBuffer,
       "the buffer to cache (one the block reads and writes)", ""},
      {"storage_scope", RecipeParamKind::kStorageScope, "the cache's scope, e.g. local", ""}}});
RecipeMethodRegistrar reg_cache_write("cache_write", CacheMethod(false), CacheDoc(false));

RecipeMethod ReindexCacheMethod(bool is_read) {
  const char* key = is_read ? "read_buffer_index" : "write_buffer_index";
  return {{"block", key, "storage_scope", "index_map"}, false, RecipeReturns::kSingle,
          [is_read, key](Schedule& sch, RecipeArgs& args) -> std::vector<RecipeRV> {
            SBlockRV block = args.Block("block");
            int index = BufferIndexArg(sch, args, block, key, is_read);
            std::string scope = args.String("storage_scope");
            const RecipeValue& m = args.Require("index_map");
            IndexMap map = args.IndexMapOf(m, "index_map", args.LambdaDType(block));
            SBlock b = sch.Get(block);
            if (map->initial_indices.size() != b->iter_vars.size()) {
              throw RecipeError{"the index map takes " + std::to_string(map->initial_indices.size()) +
                                    " indices, but the block has " +
                                    std::to_string(b->iter_vars.size()) + " iter vars",
                                m.begin, m.end};
            }
            return {ReindexCache(sch, block, index, scope, map, is_read)};
          }};
}

RecipeDoc ReindexCacheDoc(bool is_read) {
  return {"caching",
          is_read ? "read a buffer through a cache indexed by a map of the block's iters"
                  : "write a buffer through a cache indexed by a map of the block's iters",
          {{"block", RecipeParamKind::kBlock,
            is_read ? "the block reading the buffer" : "the block writing the buffer", ""},
           {is_read ? "read_buffer_index" : "write_buffer_index",
            is_read ? RecipeParamKind::kReadBuffer : RecipeParamKind::kWriteBuffer,
            "the buffer to cache (accessed at a single point)", ""},
           {"storage_scope", RecipeParamKind::kStorageScope, "the cache's scope, e.g. shared", ""},
           {"index_map", RecipeParamKind::kIndexMap,
            "the cache's indices from the block's iters, e.g. lambda i, j: (j, i)", ""}}};
}
RecipeMethodRegistrar reg_reindex_cache_read("reindex_cache_read", ReindexCacheMethod(true),
                                             ReindexCacheDoc(true));
RecipeMethodRegistrar reg_reindex_cache_write("reindex_cache_write", ReindexCacheMethod(false),
                                              ReindexCacheDoc(false));


}  // namespace

}  // namespace wb::schedule
