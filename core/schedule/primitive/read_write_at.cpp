// read_at and write_at (primitives.h): a copy of the region a loop's body reads (writes) of a
// buffer, made once per iteration of the loop into (out of) a buffer in another scope, as TVM's
// ReadWriteAtImpl does.
#include <algorithm>

#include "arith/analyzer.h"
#include "arith/int_set.h"
#include "schedule/block_scope.h"
#include "schedule/primitive/annotate.h"
#include "schedule/ir_path.h"
#include "schedule/primitive/cache.h"
#include "schedule/primitive/primitives.h"
#include "schedule/recipe.h"
#include "schedule/region.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace wb::schedule {

using namespace tir;

namespace {

// The nearest blocks under `stmt` (a realize is not descended into).
std::vector<const SBlockRealizeNode*> NearestRealizes(const Stmt& stmt) {
  std::vector<const SBlockRealizeNode*> out;
  struct Finder : StmtVisitor {
    std::vector<const SBlockRealizeNode*>* out;
    using StmtVisitor::VisitStmt_;
    void VisitStmt_(const SBlockRealizeNode* op) override { out->push_back(op); }
  } finder;
  finder.out = &out;
  finder(stmt);
  return out;
}

// Whether a loop bound to `tag` runs threads that share a buffer of `scope`, so that the copy
// must cover all of them (TVM's CanRelaxStorageUnderThread).
bool RelaxedUnder(const std::string& scope, const std::string& tag) {
  if (tag.empty()) return false;
  if (scope == "global" || scope.empty()) return true;
  if (scope.rfind("shared", 0) == 0) {
    return tag.rfind("threadIdx", 0) == 0 || tag.rfind("vthread", 0) == 0;
  }
  return false;
}

SBlockRV ReadWriteAt(Schedule& sch, const LoopRV& loop_rv, const SBlockRV& block_rv,
                     int buffer_index, const std::string& storage_scope, bool is_read) {
  const char* prim = is_read ? "read-at" : "write-at";
  For loop = sch.Get(loop_rv);
  SBlock target = sch.Get(block_rv);
  PrimFunc func = sch.Func();
  Buffer src = NthAccessBuffer(prim, target.get(), buffer_index, is_read);
  if (!IsValidStorageScope(storage_scope)) {
    throw ScheduleError(prim, "The input storage scope \"" + storage_scope + "\" is invalid.");
  }
  if (PathTo(loop, target.get()).empty()) {
    throw ScheduleError(prim, "The loop " + Quote(loop.get()) + " is not an ancestor of block " +
                                  Quote(target.get()),
                        loop->span);
  }
  SBlock scope = GetScopeRoot(sch, prim, loop.get(), true);

  // The loops from the scope down to `loop`, and those above it whose threads share the copy.
  std::vector<For> chain;
  arith::RangeMap thread_dom;
  arith::Analyzer analyzer;
  {
    std::vector<const StmtNode*> path = PathIn(func, loop.get());
    for (size_t i = path.size(); i-- > 0;) {
      if (NodeAs<SBlockNode>(path[i])) break;
      auto* f = NodeAs<ForNode>(path[i]);
      if (!f) continue;
      chain.insert(chain.begin(), GetRef(f));
      analyzer.Bind(f->loop_var, ir::MakeRange(f->min, f->extent), true);
      if (f != loop.get() && f->thread_binding.defined() &&
          RelaxedUnder(storage_scope, f->thread_binding->thread_tag)) {
        thread_dom[f->loop_var] = ir::MakeRange(f->min, f->extent);
      }
    }
  }

  std::vector<Stmt> subtrees;
  if (auto* seq = loop->body.as<SeqStmtNode>()) {
    subtrees = seq->seq;
  } else {
    subtrees.push_back(loop->body);
  }
  std::vector<size_t> r_pos, w_pos;
  std::vector<Range> region;
  for (size_t i = 0; i < subtrees.size(); ++i) {
    bool r = false, w = false;
    for (const SBlockRealizeNode* realize : NearestRealizes(subtrees[i])) {
      const SBlockNode* b = realize->block.get();
      BufferRegion read = FindRegion(b->reads, src);
      BufferRegion write = FindRegion(b->writes, src);
      r = r || read.defined();
      w = w || write.defined();
      BufferRegion access = is_read ? read : write;
      if (!access.defined()) continue;
      std::vector<Range> relaxed = RelaxRegion(func, b, access, loop.get(), &analyzer);
      for (Range& range : relaxed) {
        PrimExpr one = make_const(range->min->dtype, int64_t(1));
        PrimExpr lo = range->min;
        PrimExpr hi = add(range->min, sub(range->extent, one));
        if (!thread_dom.empty()) {
          lo = arith::EvalSet(lo, thread_dom, &analyzer).min_value;
          hi = arith::EvalSet(hi, thread_dom, &analyzer).max_value;
        }
        lo = analyzer.Simplify(lo);
        range = ir::MakeRange(lo, analyzer.Simplify(add(sub(hi, lo), one)));
      }
      region = region.empty() ? relaxed : RegionHull(region, relaxed, &analyzer);
    }
    if (r) r_pos.push_back(i);
    if (w) w_pos.push_back(i);
  }
  // The copy goes before the first reader (read_at) or after the last writer (write_at); the
  // statements from there on (up to there) use the new buffer.
  size_t insert_pos, st, ed;
  if (is_read) {
    if (!w_pos.empty() && w_pos.back() >= r_pos.front()) {
      throw ScheduleError(prim, "The buffer " + src->name + " is written in the body of loop " +
                                    Quote(loop.get()) +
                                    " after it is first read there, so a copy before the first "
                                    "read would not see the write",
                          loop->span);
    }
    insert_pos = st = r_pos.front();
    ed = subtrees.size();
  } else {
    if (!r_pos.empty() && r_pos.back() > w_pos.back()) {
      throw ScheduleError(prim, "The buffer " + src->name + " is read in the body of loop " +
                                    Quote(loop.get()) +
                                    " after its last write there, so a copy after the last write "
                                    "would come too late",
                          loop->span);
    }
    insert_pos = ed = w_pos.back() + 1;
    st = 0;
    // The new buffer holds only what the loop's body writes into it: a read of a value that the
    // block has not written first (anything but a reduction's update after its init) would read
    // nothing.
    for (size_t i = st; i < ed; ++i) {
      for (const SBlockRealizeNode* realize : NearestRealizes(subtrees[i])) {
        const SBlockNode* b = realize->block.get();
        if (!FindRegion(b->reads, src).defined()) continue;
        bool init_writes = false;
        if (b->init.defined()) {
          PostOrderVisit(b->init, [&](const ir::Object* n) {
            auto* store = NodeAs<BufferStoreNode>(n);
            init_writes |= store && store->buffer.same_as(src);
          });
        }
        if (!init_writes) {
          throw ScheduleError(prim, "The block " + Quote(b) + " reads buffer " + src->name +
                                        " without writing it first (in an init), so it would "
                                        "read the new buffer before anything is written to it",
                              b->span);
        }
      }
    }
  }

  // The copy block: iterators for the loops of the chain its region uses, bound to them.
  Buffer dst = WithScope(src, storage_scope);
  std::vector<IterVar> iters;
  std::vector<PrimExpr> values;
  VarMap to_iter;
  auto bind_vars = [&](const PrimExpr& e) {
    PostOrderVisit(e, [&](const ir::Object* n) {
      auto* v = NodeAs<VarNode>(n);
      if (!v || to_iter.count(v)) return;
      for (const For& f : chain) {
        if (f->loop_var.get() != v) continue;
        Var iv = MakeVar("v" + std::to_string(iters.size()), v->dtype);
        iters.push_back(MakeIterVar(ir::MakeRange(f->min, f->extent), iv, IterVarType::kDataPar));
        values.push_back(f->loop_var);
        to_iter[v] = iv;
      }
    });
  };
  std::vector<Range> domain;
  for (const Range& r : region) {
    bind_vars(r->min);
    bind_vars(r->extent);
    domain.push_back(ir::MakeRange(Substitute(r->min, to_iter), Substitute(r->extent, to_iter)));
  }
  std::vector<Var> ax;
  std::vector<PrimExpr> indices;
  for (size_t i = 0; i < domain.size(); ++i) {
    ax.push_back(MakeVar("ax" + std::to_string(i), DataType::Int(32)));
    indices.push_back(add(domain[i]->min, ax.back()));
  }
  const Buffer& from = is_read ? src : dst;
  const Buffer& to = is_read ? dst : src;
  Stmt body = MakeBufferStore(to, MakeBufferLoad(from, indices), indices);
  for (size_t i = domain.size(); i-- > 0;) {
    body = MakeFor(ax[i], make_const(DataType::Int(32), int64_t(0)), domain[i]->extent,
                   ForKind::kSerial, body);
  }
  std::string name = UniqueBlockName(func, src->name + "_" + storage_scope);
  SBlock copy = MakeSBlock(iters, {MakeBufferRegion(from, domain)}, {MakeBufferRegion(to, domain)},
                           name, body, {}, {}, {},
                           {{"auto_copy", ir::MakeBool(true)}});

  detail::BufferReplacer replacer({{src.get(), dst}});
  for (size_t i = st; i < ed; ++i) subtrees[i] = replacer(subtrees[i]);
  subtrees.insert(subtrees.begin() + static_cast<std::ptrdiff_t>(insert_pos),
                  MakeSBlockRealize(values, make_const(DataType::Bool(), int64_t(1)), copy));
  For new_loop = loop;
  new_loop.CopyOnWrite()->body = MakeSeq(subtrees);
  SBlock new_scope = scope;
  SBlockNode* n = new_scope.CopyOnWrite();
  n->body = ReplaceStmt(scope->body, loop.get(), new_loop);
  n->alloc_buffers.push_back(dst);
  sch.Replace(scope.get(), new_scope);

  SBlockRV out = sch.NewBlockRV(name);
  sch.Record({is_read ? "read_at" : "write_at",
              {{"loop", TraceValue::Loop(loop_rv.id)},
               {"block", TraceValue::Block(block_rv.id)},
               {is_read ? "read_buffer_index" : "write_buffer_index", TraceValue::Int(buffer_index)},
               {"storage_scope", TraceValue::String(storage_scope)}},
              {TraceValue::Block(out.id)},
              false});
  return out;
}

RecipeMethod ReadWriteAtMethod(bool is_read) {
  const char* key = is_read ? "read_buffer_index" : "write_buffer_index";
  return {{"loop", "block", key, "storage_scope"}, false, RecipeReturns::kSingle,
          [is_read, key](Schedule& sch, RecipeArgs& args) -> std::vector<RecipeRV> {
            LoopRV loop = args.Loop("loop");
            SBlockRV block = args.Block("block");
            int index = static_cast<int>(args.Int(key));
            std::string scope = args.String("storage_scope");
            return {is_read ? ReadAt(sch, loop, block, index, scope)
                            : WriteAt(sch, loop, block, index, scope)};
          }};
}

RecipeDoc ReadWriteAtDoc(bool is_read) {
  return {"caching",
          is_read ? "copy what the loop's body reads of a buffer into another scope, per iteration"
                  : "copy what the loop's body writes of a buffer out of another scope, per "
                    "iteration",
          {{"loop", RecipeParamKind::kLoop, "the loop at which the copy is made", ""},
           {"block", RecipeParamKind::kBlock,
            is_read ? "a block reading the buffer" : "a block writing the buffer", ""},
           {is_read ? "read_buffer_index" : "write_buffer_index",
            is_read ? RecipeParamKind::kReadBuffer : RecipeParamKind::kWriteBuffer,
            is_read ? "the buffer (one the block reads)" : "the buffer (one the block writes)", ""},
           {"storage_scope", RecipeParamKind::kStorageScope, "the new buffer's scope", ""}}};
}

RecipeMethodRegistrar reg_read_at("read_at", ReadWriteAtMethod(true), ReadWriteAtDoc(true));
RecipeMethodRegistrar reg_write_at("write_at", ReadWriteAtMethod(false), ReadWriteAtDoc(false));

}  // namespace

SBlockRV ReadAt(Schedule& sch, const LoopRV& loop, const SBlockRV& block, int read_buffer_index,
                const std::string& storage_scope) {
  return ReadWriteAt(sch, loop, block, read_buffer_index, storage_scope, true);
}

SBlockRV WriteAt(Schedule& sch, const LoopRV& loop, const SBlockRV& block, int write_buffer_index,
                 const std::string& storage_scope) {
  return ReadWriteAt(sch, loop, block, write_buffer_index, storage_scope, false);
}

}  // namespace wb::schedule
