// annotate, unannotate, storage_align, set_scope, unsafe_set_dtype and add_unit_loop
// (shared/SCHEDULE.md §2.8, §2.2): primitives that change a block's or loop's annotations, a
// buffer's storage scope or dtype, or wrap a statement in a unit loop.
#include "schedule/primitive/annotate.h"

#include <cstdio>

#include "schedule/block_scope.h"
#include "schedule/ir_path.h"
#include "schedule/primitive/reduction.h"
#include "schedule/recipe.h"
#include "tir/op.h"

namespace wb::schedule {

using namespace tir;

namespace detail {

Buffer NthAccessBuffer(const char* primitive, const SBlock& block, int64_t index, bool is_write) {
  const std::vector<BufferRegion>& regions = is_write ? block->writes : block->reads;
  int64_t n = static_cast<int64_t>(regions.size());
  if (index < 0 || index >= n) {
    std::string kind = is_write ? "write" : "read";
    throw ScheduleError(primitive, "The block " + Quote(block.get()) + " has " +
                                       std::to_string(n) + " " + kind +
                                       " regions, so `buffer_index` is required to be in [0, " +
                                       std::to_string(n) + "). However, the input `buffer_index` is " +
                                       std::to_string(index) + ", which is out of the expected range.");
  }
  return regions[index]->buffer;
}

bool IsValidStorageScope(const std::string& scope) {
  if (scope.empty()) return true;
  for (const char* prefix : {"global", "shared", "warp", "local", "wmma.", "texture", "amx.tmm",
                             "m16n8k8.", "metal.", "trn."}) {
    if (scope.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

SBlock AllocatingBlock(const PrimFunc& func, const SBlockNode* block, const BufferNode* buffer) {
  std::vector<const StmtNode*> path = PathTo(func->body, block);
  for (size_t i = path.size(); i-- > 0;) {
    auto* b = detail::NodeAs<SBlockNode>(path[i]);
    if (!b) continue;
    for (const Buffer& a : b->alloc_buffers) {
      if (a.get() == buffer) return GetRef(b);
    }
    for (const MatchBufferRegion& m : b->match_buffers) {
      if (m->buffer.get() == buffer) return SBlock();
    }
  }
  return SBlock();
}

std::vector<const SBlockNode*> BlocksOuterFirst(const Stmt& stmt) {
  std::vector<const SBlockNode*> blocks;
  PostOrderVisit(stmt, [&](const Object* n) {
    if (auto* b = dynamic_cast<const SBlockNode*>(n)) blocks.push_back(b);
  });
  return {blocks.rbegin(), blocks.rend()};
}

}  // namespace detail

namespace {

// The text of an RV-free trace value, for values nested in a dict.
std::string PlainText(const TraceValue& v) {
  switch (v.kind) {
    case TraceValue::Kind::kInt: return std::to_string(v.i);
    case TraceValue::Kind::kBool: return v.i ? "True" : "False";
    case TraceValue::Kind::kString: return "\"" + v.s + "\"";
    case TraceValue::Kind::kRaw: return v.s;
    case TraceValue::Kind::kList: {
      std::string out = "[";
      for (size_t i = 0; i < v.list.size(); ++i) out += (i ? ", " : "") + PlainText(v.list[i]);
      return out + "]";
    }
    default: return "None";
  }
}

// Annotation values as the trace prints them (`ann_val=1`, `ann_val="x"`, `[1, 2]`).
TraceValue AnnTraceValue(const ObjectRef& v) {
  if (!v.defined()) return TraceValue::None();
  if (auto* i = v.as<ir::IntObj>()) return TraceValue::Int(i->value);
  if (auto* b = v.as<ir::BoolObj>()) return TraceValue::Bool(b->value);
  if (auto* s = v.as<ir::StringObj>()) return TraceValue::String(s->value);
  if (auto* imm = v.as<IntImmNode>()) {
    return imm->dtype.is_bool() ? TraceValue::Bool(imm->value != 0) : TraceValue::Int(imm->value);
  }
  if (auto* f = v.as<ir::FloatObj>()) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.17g", f->value);
    return TraceValue::Raw(buf);
  }
  if (auto* a = v.as<ir::ArrayObj>()) {
    std::vector<TraceValue> items;
    for (const ObjectRef& x : a->items) items.push_back(AnnTraceValue(x));
    return TraceValue::List(std::move(items));
  }
  if (auto* m = v.as<ir::MapObj>()) {
    // TVM prints the strings nested in a dict raw.
    std::string text = "{";
    bool first = true;
    for (const auto& [k, x] : m->items) {
      TraceValue tv = AnnTraceValue(x);
      text += (first ? "\"" : ", \"") + k + "\": " +
              (tv.kind == TraceValue::Kind::kString ? tv.s : PlainText(tv));
      first = false;
    }
    return TraceValue::Raw(text + "}");
  }
  throw std::invalid_argument(std::string("annotate: unsupported annotation value ") +
                              v->type_key());
}

TraceValue BlockOrLoopValue(const std::variant<SBlockRV, LoopRV>& rv) {
  if (auto* b = std::get_if<SBlockRV>(&rv)) return TraceValue::Block(b->id);
  return TraceValue::Loop(std::get<LoopRV>(rv).id);
}

Stmt WithAnnotations(const Stmt& stmt, const AttrMap& annotations) {
  if (auto* b = stmt.as<SBlockNode>()) {
    SBlock copy = GetRef(b);
    copy.CopyOnWrite()->annotations = annotations;
    return copy;
  }
  For copy = Downcast<ForNode>(stmt);
  copy.CopyOnWrite()->annotations = annotations;
  return copy;
}

}  // namespace

Stmt Schedule::BlockOrLoop(const std::variant<SBlockRV, LoopRV>& rv) const {
  if (auto* b = std::get_if<SBlockRV>(&rv)) return Get(*b);
  return Get(std::get<LoopRV>(rv));
}

void Schedule::Annotate(const std::variant<SBlockRV, LoopRV>& block_or_loop,
                        const std::string& ann_key, const ObjectRef& ann_val) {
  Stmt target = BlockOrLoop(block_or_loop);
  TraceValue traced = AnnTraceValue(ann_val);
  const AttrMap& anns = target.as<SBlockNode>() ? target.as<SBlockNode>()->annotations
                                                : target.as<ForNode>()->annotations;
  // TVM keeps an existing value: annotating a present key changes nothing (and is recorded).
  if (!anns.count(ann_key)) {
    AttrMap updated = anns;
    updated[ann_key] = ann_val;
    Replace(target.get(), WithAnnotations(target, updated));
  }
  Record({"annotate",
          {{"block_or_loop", BlockOrLoopValue(block_or_loop)},
           {"ann_key", TraceValue::String(ann_key)},
           {"ann_val", traced}},
          {},
          false});
}

void Schedule::Unannotate(const std::variant<SBlockRV, LoopRV>& block_or_loop,
                          const std::string& ann_key) {
  Stmt target = BlockOrLoop(block_or_loop);
  const AttrMap& anns = target.as<SBlockNode>() ? target.as<SBlockNode>()->annotations
                                                : target.as<ForNode>()->annotations;
  if (!anns.count(ann_key)) {
    // TVM raises IndexError here; the message is TVM's.
    throw ScheduleError("unannotate", "Cannot find annotation key: " + ann_key);
  }
  AttrMap updated = anns;
  updated.erase(ann_key);
  Replace(target.get(), WithAnnotations(target, updated));
  Record({"unannotate",
          {{"block_or_loop", BlockOrLoopValue(block_or_loop)},
           {"ann_key", TraceValue::String(ann_key)}},
          {},
          false});
}

void Schedule::StorageAlign(const SBlockRV& block_rv, int64_t buffer_index, int64_t axis,
                            int64_t factor, int64_t offset) {
  const char* prim = "storage-align";
  SBlock block = Get(block_rv);
  Buffer buffer = detail::NthAccessBuffer(prim, block, buffer_index, true);
  if (factor <= 0) {
    throw ScheduleError(prim,
                        "The input `factor` of storage_align is expected to be a positive number. "
                        "However, the input `factor` is " +
                            std::to_string(factor) + ", which is out of the expected range.");
  }
  int64_t ndim = static_cast<int64_t>(buffer->shape.size());
  if (axis < -ndim || axis >= ndim) {
    throw ScheduleError(prim, "The buffer to set storage alignment of, " + buffer->name +
                                  ", has " + std::to_string(ndim) +
                                  " dimension(s), so `axis` is required to be in [" +
                                  std::to_string(-ndim) + ", " + std::to_string(ndim) +
                                  ") for storage_align. However, the input `axis` is " +
                                  std::to_string(axis) + ", which is out of the expected range.");
  }
  int64_t norm_axis = axis < 0 ? axis + ndim : axis;
  if (!detail::AllocatingBlock(Func(), block.get(), buffer.get()).defined()) {
    throw ScheduleError(prim, "The input buffer " + buffer->name +
                                  " is not allocated by a block. This means the buffer is either "
                                  "a function parameter or defined in `match_buffer` of a block.");
  }
  // The annotation: [[buffer_index, axis, factor, offset], ...]; same (index, axis) replaced.
  std::vector<ObjectRef> entries;
  auto it = block->annotations.find("buffer_dim_align");
  if (it != block->annotations.end()) {
    auto* arr = it->second.as<ir::ArrayObj>();
    bool valid = arr != nullptr;
    for (size_t i = 0; valid && i < arr->items.size(); ++i) {
      auto* t = arr->items[i].as<ir::ArrayObj>();
      valid = t && t->items.size() == 4;
      for (size_t k = 0; valid && k < 4; ++k) valid = t->items[k].as<ir::IntObj>() != nullptr;
    }
    if (!valid) {
      throw ScheduleError(prim,
                          "The block annotation for storage align is expected to be an array of "
                          "4-integer-tuples (buffer_index, axis, factor, offset). However, the "
                          "block annotation with key buffer_dim_align of the block " +
                              Quote(block.get()) + " is unexpected.");
    }
    entries = arr->items;
  }
  ObjectRef tuple = ir::MakeArray({ir::MakeInt(buffer_index), ir::MakeInt(norm_axis),
                                   ir::MakeInt(factor), ir::MakeInt(offset)});
  bool found = false;
  for (ObjectRef& e : entries) {
    auto* t = e.as<ir::ArrayObj>();
    if (t->items[0].as<ir::IntObj>()->value == buffer_index &&
        t->items[1].as<ir::IntObj>()->value == norm_axis) {
      e = tuple;
      found = true;
      break;
    }
  }
  if (!found) entries.push_back(tuple);
  AttrMap anns = block->annotations;
  anns["buffer_dim_align"] = ir::MakeArray(entries);
  Replace(block.get(), WithAnnotations(block, anns));
  Record({"storage_align",
          {{"block", TraceValue::Block(block_rv.id)},
           {"buffer_index", TraceValue::Int(buffer_index)},
           {"axis", TraceValue::Int(axis)},
           {"factor", TraceValue::Int(factor)},
           {"offset", TraceValue::Int(offset)}},
          {},
          false});
}

void Schedule::SetScope(const SBlockRV& block_rv, int64_t buffer_index,
                        const std::string& storage_scope) {
  const char* prim = "set-scope";
  SBlock block = Get(block_rv);
  Buffer buffer = detail::NthAccessBuffer(prim, block, buffer_index, true);
  // The same scope changes nothing, and TVM still records the call.
  if (buffer->scope() != storage_scope) {
    if (!detail::IsValidStorageScope(storage_scope)) {
      throw ScheduleError(prim, "The input storage scope \"" + storage_scope + "\" is invalid.");
    }
    SBlock site = detail::AllocatingBlock(Func(), block.get(), buffer.get());
    if (!site.defined()) {
      throw ScheduleError(prim, "The input buffer " + buffer->name +
                                    " is not allocated by a block. This means the buffer is "
                                    "either a function parameter or defined in `match_buffer` of "
                                    "a block.");
    }
    // TVM renames the buffer and its data variable `<name>_<scope>`, and buffers matched onto
    // it (a match of a match too) take the scope and the suffix.
    auto rescoped = [&](const Buffer& b) {
      BufferOptions opts;
      opts.strides = b->strides;
      opts.elem_offset = b->elem_offset;
      opts.scope = storage_scope;
      opts.data_alignment = b->data_alignment;
      opts.offset_factor = b->offset_factor;
      return MakeBuffer(b->name + "_" + storage_scope, b->shape, b->dtype, opts, b->span);
    };
    std::unordered_map<const BufferNode*, Buffer> map{{buffer.get(), rescoped(buffer)}};
    for (const SBlockNode* b : detail::BlocksOuterFirst(site)) {
      for (const MatchBufferRegion& m : b->match_buffers) {
        if (map.count(m->source->buffer.get())) map[m->buffer.get()] = rescoped(m->buffer);
      }
    }
    Stmt rebuilt = detail::BufferReplacer(std::move(map))(site);
    Replace(site.get(), rebuilt);
  }
  Record({"set_scope",
          {{"block", TraceValue::Block(block_rv.id)},
           {"buffer_index", TraceValue::Int(buffer_index)},
           {"storage_scope", TraceValue::String(storage_scope)}},
          {},
          false});
}

namespace {

// Retypes buffers (the written one and buffers matched onto it) and converts at every access.
class DTypeRewriter : public detail::BufferReplacer {
 public:
  DTypeRewriter(std::unordered_map<const BufferNode*, Buffer> map, DataType from, DataType to)
      : BufferReplacer(std::move(map)), from_(from), to_(to) {}

 private:
  using BufferReplacer::VisitExpr_;
  using BufferReplacer::VisitStmt_;
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt s = BufferReplacer::VisitStmt_(op);
    if (!map_.count(op->buffer.get())) return s;
    auto* store = s.as<BufferStoreNode>();
    return MakeBufferStore(store->buffer, MakeCast(to_, store->value), store->indices,
                           store->predicate, store->span);
  }
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = BufferReplacer::VisitExpr_(op);
    if (!map_.count(op->buffer.get())) return e;
    return MakeCast(from_, e, op->span);
  }
  DataType from_, to_;
};

Buffer WithDType(const Buffer& b, DataType dtype) {
  BufferOptions opts;
  opts.strides = b->strides;
  opts.elem_offset = b->elem_offset;
  opts.scope = b->scope();
  opts.data_alignment = b->data_alignment;
  opts.offset_factor = b->offset_factor;
  return MakeBuffer(b->name, b->shape, dtype, opts, b->span);
}

}  // namespace

void Schedule::UnsafeSetDType(const SBlockRV& block_rv, int64_t buffer_index,
                              const std::string& dtype) {
  const char* prim = "set-dtype";
  SBlock block = Get(block_rv);
  Buffer buffer = detail::NthAccessBuffer(prim, block, buffer_index, true);
  std::optional<DataType> target = DataType::Parse(dtype);
  if (!target) throw std::invalid_argument("unknown dtype \"" + dtype + "\"");
  if (buffer->dtype != *target) {
    SBlock site = detail::AllocatingBlock(Func(), block.get(), buffer.get());
    if (!site.defined()) {
      throw ScheduleError(prim, "The input buffer " + buffer->name +
                                    " is not allocated by a block. This means the buffer is "
                                    "either a function parameter or defined in `match_buffer` of "
                                    "a block.");
    }
    std::unordered_map<const BufferNode*, Buffer> map{{buffer.get(), WithDType(buffer, *target)}};
    // Buffers matched onto the retyped one take its dtype too.
    for (const SBlockNode* b : detail::BlocksOuterFirst(site)) {
      for (const MatchBufferRegion& m : b->match_buffers) {
        if (map.count(m->source->buffer.get())) map[m->buffer.get()] = WithDType(m->buffer, *target);
      }
    }
    Stmt rebuilt = DTypeRewriter(std::move(map), buffer->dtype, *target)(site);
    Replace(site.get(), rebuilt);
  }
  Record({"unsafe_set_dtype",
          {{"block", TraceValue::Block(block_rv.id)},
           {"buffer_index", TraceValue::Int(buffer_index)},
           {"dtype", TraceValue::String(dtype)}},
          {},
          false});
}

LoopRV Schedule::AddUnitLoop(const std::variant<SBlockRV, LoopRV>& block_or_loop) {
  Stmt target = BlockOrLoop(block_or_loop);
  PrimFunc func = Func();
  const StmtNode* wrapped = target.get();
  if (auto* b = target.as<SBlockNode>()) {
    std::vector<const StmtNode*> path = PathTo(func->body, b);
    // The function's root block has no realize above it, or its realize is the body itself.
    bool is_root = path.size() < 2 || !ParentBlock(func, b).defined();
    if (is_root) throw std::invalid_argument("Cannot add loops on top of the root block");
    wrapped = path[path.size() - 2];  // the SBlockRealize
  }
  Var u = MakeVar("u", DataType::Int(32));
  Stmt loop = MakeFor(u, make_const(DataType::Int(32), int64_t(0)),
                      make_const(DataType::Int(32), int64_t(1)), ForKind::kSerial,
                      GetRef(wrapped));
  Replace(wrapped, loop);
  LoopRV out = NewLoopRV(u);
  Record({"add_unit_loop",
          {{"block_or_loop", BlockOrLoopValue(block_or_loop)}},
          {TraceValue::Loop(out.id)},
          false});
  return out;
}

}  // namespace wb::schedule

// --- recipe methods ------------------------------------------------------------------------------

namespace wb::schedule {
namespace {

using Outputs = std::vector<RecipeRV>;

// An annotation value as a recipe writes it: numbers, strings, booleans, lists of them, and
// sampled values (which TVM evaluates before annotating).
ObjectRef AnnValue(RecipeArgs& args, const RecipeValue& v) {
  switch (v.kind) {
    case RecipeValue::Kind::kInt: return ir::MakeInt(v.i);
    case RecipeValue::Kind::kBool: return ir::MakeBool(v.i != 0);
    case RecipeValue::Kind::kString: return ir::MakeString(v.s);
    case RecipeValue::Kind::kFloat: return ir::MakeFloat(v.f);
    case RecipeValue::Kind::kList: {
      std::vector<ObjectRef> items;
      for (const RecipeValue& item : v.list) items.push_back(AnnValue(args, item));
      return ir::MakeArray(std::move(items));
    }
    case RecipeValue::Kind::kDict: {
      // TVM's annotation dicts are keyed by strings (Map<String, Any>).
      ir::AttrMap items;
      for (size_t k = 0; k + 1 < v.list.size(); k += 2) {
        if (v.list[k].kind != RecipeValue::Kind::kString) {
          throw RecipeArgs::TypeError(v.list[k], "a key of ann_val's dict", "a string");
        }
        items[v.list[k].s] = AnnValue(args, v.list[k + 1]);
      }
      return ir::MakeMap(std::move(items));
    }
    case RecipeValue::Kind::kHandle: return ir::MakeInt(args.ExprValueOf(v));
    default: break;
  }
  throw RecipeArgs::TypeError(v, "ann_val",
                              "a number, a string, a boolean or a list or string-keyed dict of "
                              "them");
}

RecipeMethodRegistrar reg_annotate(
    "annotate", {{"block_or_loop", "ann_key", "ann_val"}, false, RecipeReturns::kNothing,
                 [](Schedule& sch, RecipeArgs& args) -> Outputs {
                   sch.Annotate(args.BlockOrLoop("block_or_loop"), args.String("ann_key"),
                                AnnValue(args, args.Require("ann_val")));
                   return {};
                 }},
    {"annotations",
     "attach a key/value annotation to a block or loop",
     {{"block_or_loop", RecipeParamKind::kBlockOrLoop, "the block or loop", ""},
      {"ann_key", RecipeParamKind::kAnnKey, "the annotation key", ""},
      {"ann_val", RecipeParamKind::kAnnValue,
       "the value: a number, a string, True/False, or a list or dict of them", ""}}});

RecipeMethodRegistrar reg_unannotate(
    "unannotate", {{"block_or_loop", "ann_key"}, false, RecipeReturns::kNothing,
                   [](Schedule& sch, RecipeArgs& args) -> Outputs {
                     sch.Unannotate(args.BlockOrLoop("block_or_loop"), args.String("ann_key"));
                     return {};
                   }},
    {"annotations",
     "remove an annotation from a block or loop",
     {{"block_or_loop", RecipeParamKind::kBlockOrLoop, "the block or loop", ""},
      {"ann_key", RecipeParamKind::kAnnKey, "the annotation key to remove", ""}}});

RecipeMethodRegistrar reg_storage_align(
    "storage_align", {{"block", "buffer_index", "axis", "factor", "offset"}, false,
                      RecipeReturns::kNothing, [](Schedule& sch, RecipeArgs& args) -> Outputs {
                        sch.StorageAlign(args.Block("block"), args.Int("buffer_index"),
                                         args.Int("axis"), args.Int("factor"),
                                         args.Int("offset"));
                        return {};
                      }},
    {"layout",
     "pad a buffer axis's stride so that stride % factor == offset",
     {{"block", RecipeParamKind::kBlock, "the block writing the buffer", ""},
      {"buffer_index", RecipeParamKind::kWriteBuffer,
       "the written buffer (allocated in the function)", ""},
      {"axis", RecipeParamKind::kInt, "the buffer axis to align", ""},
      {"factor", RecipeParamKind::kInt, "the alignment factor (positive)", ""},
      {"offset", RecipeParamKind::kInt, "the required offset", ""}}});

RecipeMethodRegistrar reg_set_scope(
    "set_scope", {{"block", "buffer_index", "storage_scope"}, false, RecipeReturns::kNothing,
                  [](Schedule& sch, RecipeArgs& args) -> Outputs {
                    SBlockRV block = args.Block("block");
                    const RecipeValue& index = args.Require("buffer_index");
                    int64_t buffer_index = 0;
                    if (index.kind == RecipeValue::Kind::kString) {
                      // By name, as TVM's Python resolves it: the buffer must be one the block
                      // writes.
                      SBlock b = sch.Get(block);
                      buffer_index = -1;
                      for (size_t i = 0; i < b->writes.size(); ++i) {
                        if (b->writes[i]->buffer->name == index.s) buffer_index = int64_t(i);
                      }
                      if (buffer_index < 0) {
                        bool read = false;
                        for (const BufferRegion& r : b->reads) read |= r->buffer->name == index.s;
                        throw RecipeError{read ? "set_scope needs a buffer the block writes; it "
                                                 "only reads " + index.s
                                               : "the block does not access a buffer named " +
                                                     index.s,
                                          index.begin, index.end};
                      }
                    } else {
                      buffer_index = args.Int("buffer_index");
                    }
                    sch.SetScope(block, buffer_index, args.String("storage_scope"));
                    return {};
                  }},
    {"caching",
     "move a buffer the block writes to another storage scope",
     {{"block", RecipeParamKind::kBlock, "the block writing the buffer", ""},
      {"buffer_index", RecipeParamKind::kWriteBuffer,
       "the written buffer (allocated in the function)", ""},
      {"storage_scope", RecipeParamKind::kStorageScope, "the new scope, e.g. shared", ""}}});

RecipeMethodRegistrar reg_unsafe_set_dtype(
    "unsafe_set_dtype", {{"block", "buffer_index", "dtype"}, false, RecipeReturns::kNothing,
                         [](Schedule& sch, RecipeArgs& args) -> Outputs {
                           sch.UnsafeSetDType(args.Block("block"), args.Int("buffer_index"),
                                              args.String("dtype"));
                           return {};
                         }},
    {"caching",
     "change the dtype of a buffer the block writes, casting at every access",
     {{"block", RecipeParamKind::kBlock, "the block writing the buffer", ""},
      {"buffer_index", RecipeParamKind::kWriteBuffer,
       "the written buffer (allocated in the function)", ""},
      {"dtype", RecipeParamKind::kString, "the new dtype, e.g. float16", ""}}});

RecipeMethodRegistrar reg_add_unit_loop(
    "add_unit_loop", {{"block_or_loop"}, false, RecipeReturns::kSingle,
                      [](Schedule& sch, RecipeArgs& args) -> Outputs {
                        return {sch.AddUnitLoop(args.BlockOrLoop("block_or_loop"))};
                      }},
    {"loop transformations",
     "wrap the block or loop in a new loop of extent 1",
     {{"block_or_loop", RecipeParamKind::kBlockOrLoop, "the block or loop to wrap", ""}}});

}  // namespace
}  // namespace wb::schedule
