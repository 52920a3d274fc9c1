// Buffers (T.Buffer, T.match_buffer, T.alloc_buffer, T.decl_buffer, T.sblock_alloc_buffer),
// block-level calls (T.sblock, T.axis.*, T.where, T.reads/T.writes, T.sblock_attr) and loops
// (range, T.grid, T.serial, ..., T.thread_binding).
#include "script/parser_core.h"
#include "tir/op.h"

namespace wb::script::detail {

using namespace wb::tir;

PrimExpr Parser::ShapeDim(const Value& v, Node n) {
  PrimExpr e = ToPrim(v, n);
  if (!e->dtype.is_integer()) Fail(n, "buffer shape must be integers, got " + e->dtype.ToString());
  return e;
}

std::vector<PrimExpr> Parser::ShapeOf(Node n, bool signature) {
  std::vector<Node> items;
  K k = Kind(n);
  if (k == K::kTuple || k == K::kList) {
    items = cst_->Children(n);
  } else if (k == K::kParenthesized) {
    return ShapeOf(cst_->Children(n).at(0), signature);
  } else {
    items.push_back(n);
  }
  std::vector<PrimExpr> shape;
  for (Node item : items) {
    if (Kind(item) == K::kString) {
      Value v = ParseQuoted(item, DataType::Int(32));
      shape.push_back(ToPrim(v, item));
      continue;
    }
    if (Kind(item) == K::kListSplat) {
      // `[128, *dims]`: the splatted sequence's dims in place.
      auto inner = cst_->Children(item);
      if (inner.empty()) Fail(item, "invalid '*' expression");
      Value s = Eval(inner[0]);
      if (!s.is_seq()) Fail(item, "'*' needs a list or tuple of dims");
      for (const auto& d : s.items) shape.push_back(ShapeDim(d, item));
      continue;
    }
    Value v = Eval(item);
    if (v.is_seq() && items.size() == 1) {
      for (const auto& d : v.items) shape.push_back(ShapeDim(d, item));
      continue;
    }
    shape.push_back(ShapeDim(v, item));
  }
  return shape;
}

Value Parser::BufferCall(std::string_view name, const Args& args) {
  Node n = args.call;
  auto spec = std::make_shared<BufferSpec>();
  spec->span = SpanOf(n);
  std::vector<Node> pos = args.pos;
  if (name == "T.match_buffer") {
    spec->origin = BufferSpec::kMatch;
    if (pos.empty()) Fail(n, "T.match_buffer expects a handle parameter or a buffer region");
    Value src = Eval(pos[0]);
    if (src.kind == VK::kExpr && src.expr.as<VarNode>() && src.expr->dtype.is_handle()) {
      spec->source = src.expr;
    } else {
      spec->source = ToRegion(src, pos[0]);
    }
    pos.erase(pos.begin());
  } else if (name == "T.alloc_buffer" || name == "T.alloc_shared" || name == "T.alloc_local") {
    spec->origin = BufferSpec::kAlloc;
    if (name == "T.alloc_shared") spec->options.scope = "shared";
    if (name == "T.alloc_local") spec->options.scope = "local";
  } else if (name == "T.decl_buffer") {
    spec->origin = BufferSpec::kDeclBuffer;
  } else if (name == "T.sblock_alloc_buffer") {
    spec->origin = BufferSpec::kSBlockAlloc;
  }
  Node shape_node = pos.size() > 0 ? pos[0] : args.Kw("shape");
  Node dtype_node = pos.size() > 1 ? pos[1] : args.Kw("dtype");
  if (pos.size() > 2) Fail(pos[2], std::string(name) + ": pass the remaining arguments by keyword");
  if (!IsNull(shape_node)) {
    spec->shape = ShapeOf(shape_node, in_signature_);
  } else if (spec->origin != BufferSpec::kMatch) {
    Fail(n, std::string(name) + " needs a shape");
  }
  if (!IsNull(dtype_node)) {
    spec->dtype = ToDType(Eval(dtype_node), dtype_node);
  } else if (spec->origin == BufferSpec::kMatch) {
    if (auto* r = spec->source.as<BufferRegionNode>()) spec->dtype = r->buffer->dtype;
  }
  // Without a shape, a region's match takes every extent of the region, unit ones included, as
  // TVM's builder does; a shape given as `()` or `[]` is a 0-d buffer.
  if (spec->origin == BufferSpec::kMatch && IsNull(shape_node)) {
    auto* r = spec->source.as<BufferRegionNode>();
    if (!r) Fail(n, "T.match_buffer on a handle needs a shape");
    for (const auto& range : r->region) spec->shape.push_back(range->extent);
  }
  for (const auto& [key, node] : args.kw) {
    if (key == "shape" || key == "dtype") continue;
    if (key == "data") {
      PrimExpr d = EvalPrim(node);
      Var v = d.as_ref<VarNode>();
      if (!v.defined() || !d->dtype.is_handle()) Fail(node, "data= expects a handle variable such as B.data");
      spec->options.data = v;
      spec->has_data = true;
    } else if (key == "strides") {
      Value s = Eval(node);
      if (s.kind == VK::kNone) continue;
      for (const auto& item : ToSeq(s, node)) {
        if (item.kind == VK::kStr) {
          // A quoted stride names a variable as a quoted shape entry does: the same name means
          // the same Var, and the body may use it (the printer then declares it there).
          const Value* found = func_ ? Lookup(item.s) : nullptr;
          if (found && found->kind == VK::kExpr && found->expr.as<VarNode>()) {
            spec->options.strides.push_back(found->expr);
            continue;
          }
          Var v = MakeVar(item.s, DataType::Int(32), SpanOf(node));
          if (func_) scopes_[func_scope_][item.s] = Value::Expr(v);
          spec->options.strides.push_back(v);
        } else {
          spec->options.strides.push_back(ToPrim(item, node));
        }
      }
    } else if (key == "elem_offset") {
      Value e = Eval(node);
      if (e.kind == VK::kStr) spec->options.elem_offset = MakeVar(e.s, DataType::Int(32), SpanOf(node));
      else if (e.kind != VK::kNone) spec->options.elem_offset = ToPrim(e, node);
    } else if (key == "scope") {
      spec->options.scope = ToStr(Eval(node), node);
    } else if (key == "align") {
      int64_t a = ToInt(Eval(node), node);
      spec->options.data_alignment = a <= 0 ? 64 : a;
    } else if (key == "offset_factor") {
      int64_t f = ToInt(Eval(node), node);
      spec->options.offset_factor = f <= 0 ? 1 : f;
      // As TVM's decl_buffer: an offset factor with no element offset makes the offset a fresh
      // variable (a multiple of the factor), for a parameter or match_buffer one the signature binds.
      if (f > 0 && !spec->options.elem_offset.defined() &&
          (spec->origin == BufferSpec::kMatch || spec->origin == BufferSpec::kDecl)) {
        spec->options.elem_offset = MakeVar("elem_offset", DataType::Int(32), SpanOf(node));
      }
    } else if (key == "annotations") {
      Value a = Eval(node);
      ObjectRef m = ToAttrValue(a, node);
      if (auto* map = m.as<ir::MapObj>()) spec->annotations = map->items;
    } else if (key == "buffer_type" || key == "axis_separators" || key == "layout") {
      // Accepted for compatibility; our buffers have no such fields.
    } else {
      Fail(node, std::string(name) + ": unknown keyword '" + std::string(key) + "'");
    }
  }
  if (spec->origin == BufferSpec::kDeclBuffer && !spec->has_data) spec->origin = BufferSpec::kAlloc;
  Value v;
  v.kind = VK::kBufferSpec;
  v.bspec = spec;
  return v;
}

Buffer Parser::MakeBufferFromSpec(std::string name, const BufferSpec& spec, Node n) {
  BufferOptions options = spec.options;
  if (options.scope.empty()) options.scope = "global";
  return MakeBuffer(std::move(name), spec.shape, spec.dtype, options, SpanOf(n));
}

std::vector<Stmt> Parser::DeclareBuffer(std::string_view name, const Value& value, Node target) {
  const BufferSpec& spec = *value.bspec;
  Buffer buffer = MakeBufferFromSpec(std::string(name), spec, target);
  std::vector<Stmt> out;
  Span span = spec.span;
  switch (spec.origin) {
    case BufferSpec::kDecl:
    case BufferSpec::kParam: break;
    case BufferSpec::kAlloc: out.push_back(MakeAllocBuffer(buffer, spec.annotations, span)); break;
    case BufferSpec::kDeclBuffer: out.push_back(MakeDeclBuffer(buffer, span)); break;
    case BufferSpec::kSBlockAlloc:
      if (!blocks_.empty()) {
        blocks_.back()->allocs.push_back(buffer);
      } else if (func_ && func_->top_level_depth == 0) {
        func_->root_allocs.push_back(buffer);
      } else {
        Fail(target, "T.sblock_alloc_buffer must be inside a T.sblock or at the top of the function");
      }
      break;
    case BufferSpec::kMatch:
      if (auto* var = spec.source.as<VarNode>()) {
        bool found = false;
        if (func_ && blocks_.empty()) {
          for (size_t i = 0; i < func_->params.size(); ++i) {
            if (func_->params[i].get() == var) {
              if (func_->buffer_map[i].defined()) Fail(target, "parameter '" + var->name_hint + "' is already matched to a buffer");
              func_->buffer_map[i] = buffer;
              // The handle takes the buffer's pointer type, as a T.Buffer parameter would.
              std::string scope = spec.options.scope.empty() ? "global" : spec.options.scope;
              Var typed = MakePointerVar(var->name_hint, buffer->dtype, scope, var->span);
              scopes_[func_scope_][var->name_hint] = Value::Expr(typed);
              func_->params[i] = typed;
              found = true;
            }
          }
        }
        if (!found) Fail(target, "T.match_buffer on a handle must name a parameter, at the top of the function");
      } else {
        if (blocks_.empty()) Fail(target, "T.match_buffer of a region must be inside a T.sblock");
        blocks_.back()->match_buffers.push_back(
            MakeMatchBufferRegion(buffer, Downcast<BufferRegionNode>(spec.source), span));
      }
      break;
  }
  Bind(name, Value::Of(VK::kBuffer, buffer));
  return out;
}

BufferRegion Parser::ToRegion(const Value& v, Node n) {
  if (v.kind == VK::kRegion) return Downcast<BufferRegionNode>(v.obj);
  if (v.kind == VK::kBuffer) return FullRegion(Downcast<BufferNode>(v.obj));
  if (v.kind == VK::kExpr) {
    if (auto* load = v.expr.as<BufferLoadNode>()) {
      std::vector<ir::Range> region;
      for (const auto& idx : load->indices) {
        if (auto* ramp = idx.as<RampNode>()) {
          const int64_t* st = AsConstInt(ramp->stride);
          if (st && *st == 1) {
            region.push_back(ir::MakeRange(ramp->base, make_const(ramp->base->dtype, ramp->lanes)));
            continue;
          }
        }
        region.push_back(ir::MakeRange(idx, make_const(idx->dtype.element_of(), int64_t(1))));
      }
      return MakeBufferRegion(load->buffer, std::move(region), SpanOf(n));
    }
  }
  Fail(n, std::string("expected a buffer region such as A[vi, 0:16], got ") + DescribeKind(v.kind));
}

namespace {

ir::Range DomainOf(Parser* p, const Value& v, Node n) {
  if (v.kind == VK::kObject) {
    if (auto* r = v.obj.as<ir::RangeNode>()) return GetRef(r);
  }
  if (v.is_seq()) {
    if (v.items.size() != 2) p->Fail(n, "an axis domain is an extent or a (min, max) pair");
    PrimExpr lo = p->ToPrim(v.items[0], n);
    PrimExpr hi = p->ToPrimAs(v.items[1], lo->dtype, n);
    MatchTypes(lo, hi);
    return ir::MakeRange(lo, RangeExtent(lo, hi), p->SpanOf(n));
  }
  PrimExpr e = p->ToPrim(v, n);
  return ir::MakeRange(make_const(e->dtype, int64_t(0)), e, p->SpanOf(n));
}

Value AxisValue(ir::Range dom, PrimExpr binding, IterVarType type, DataType dtype) {
  Value v;
  v.kind = VK::kAxis;
  v.axis = std::make_shared<AxisSpec>();
  if (binding->dtype.bits() == 64 || dom->extent->dtype.bits() == 64) dtype = DataType::Int(64);
  binding = cast(dtype, binding);
  dom = ir::MakeRange(cast(dtype, dom->min), cast(dtype, dom->extent), dom->span);
  v.axis->dom = dom;
  v.axis->binding = binding;
  v.axis->type = type;
  v.axis->dtype = dtype;
  return v;
}

}  // namespace

Value Parser::BlockCall(std::string_view name, const Args& args) {
  Node n = args.call;
  if (name == "T.sblock") {
    Value v;
    v.kind = VK::kFrame;
    v.frame = std::make_shared<FrameSpec>();
    v.frame->kind = FrameSpec::kSBlock;
    Node nm = !args.pos.empty() ? args.pos[0] : args.Kw("name");
    if (!IsNull(nm)) v.frame->name = ToStr(Eval(nm), nm);
    if (Node nr = args.Kw("no_realize"); !IsNull(nr)) v.frame->no_realize = ToBool(Eval(nr), nr);
    return v;
  }
  if (name == "T.init") {
    Value v;
    v.kind = VK::kFrame;
    v.frame = std::make_shared<FrameSpec>();
    v.frame->kind = FrameSpec::kInit;
    return v;
  }
  if (blocks_.empty()) Fail(Field(n, F().function), std::string(name) + " must be inside a T.sblock");
  BlockFrame& frame = *blocks_.back();
  if (name == "T.where") {
    if (args.pos.size() != 1) Fail(n, "T.where expects one condition");
    frame.predicate = ToPrimAs(Eval(args.pos[0]), DataType::Bool(), args.pos[0]);
    if (!frame.predicate->dtype.is_bool()) frame.predicate = cast(DataType::Bool(), frame.predicate);
    return Value::None();
  }
  if (name == "T.reads" || name == "T.writes") {
    std::vector<BufferRegion>& out = name == "T.reads" ? frame.reads : frame.writes;
    (name == "T.reads" ? frame.has_reads : frame.has_writes) = true;
    for (Node a : args.pos) {
      Value v = Eval(a);
      for (const auto& item : ToSeq(v, a)) out.push_back(ToRegion(item, a));
    }
    return Value::None();
  }
  if (name == "T.sblock_attr") {
    if (args.pos.size() != 1) Fail(n, "T.sblock_attr expects a dict");
    ObjectRef m = ToAttrValue(Eval(args.pos[0]), args.pos[0]);
    auto* map = m.as<ir::MapObj>();
    if (!map) Fail(args.pos[0], "T.sblock_attr expects a dict");
    for (const auto& [k, v] : map->items) frame.annotations[k] = v;
    return Value::None();
  }
  if (name == "T.axis.remap") {
    if (args.pos.size() != 2) Fail(n, "T.axis.remap expects a kinds string and a list of loop variables");
    std::string kinds = ToStr(Eval(args.pos[0]), args.pos[0]);
    Value bindings = Eval(args.pos[1]);
    std::vector<Value> vars = ToSeq(bindings, args.pos[1]);
    if (kinds.size() != vars.size()) {
      Fail(args.pos[0], "T.axis.remap kinds '" + kinds + "' do not match " + std::to_string(vars.size()) +
                            " loop variable" + (vars.size() == 1 ? "" : "s"));
    }
    Value out;
    out.kind = VK::kTuple;
    for (size_t i = 0; i < kinds.size(); ++i) {
      IterVarType type;
      if (kinds[i] == 'S') type = IterVarType::kDataPar;
      else if (kinds[i] == 'R') type = IterVarType::kCommReduce;
      else Fail(args.pos[0], std::string("T.axis.remap kind '") + kinds[i] + "' is not 'S' or 'R'");
      PrimExpr b = ToPrim(vars[i], args.pos[1]);
      auto* var = b.as<VarNode>();
      auto it = var ? loop_doms_.find(var) : loop_doms_.end();
      if (it == loop_doms_.end()) {
        Fail(args.pos[1], "T.axis.remap binds loop variables; '" +
                              (var ? var->name_hint : std::string("expression")) + "' is not one");
      }
      out.items.push_back(AxisValue(ir::MakeRange(it->second.first, it->second.second), b, type, b->dtype));
    }
    return out;
  }
  // T.axis.spatial / reduce / scan / opaque / S / R
  IterVarType type = IterVarType::kDataPar;
  if (name == "T.axis.reduce" || name == "T.axis.R") type = IterVarType::kCommReduce;
  else if (name == "T.axis.scan") type = IterVarType::kOrdered;
  else if (name == "T.axis.opaque") type = IterVarType::kOpaque;
  Node dom_node = args.pos.size() > 0 ? args.pos[0] : args.Kw("dom");
  Node binding_node = args.pos.size() > 1 ? args.pos[1] : args.Kw("binding");
  if (IsNull(dom_node) || IsNull(binding_node)) Fail(n, std::string(name) + " expects a domain and a binding");
  ir::Range dom = DomainOf(this, Eval(dom_node), dom_node);
  PrimExpr binding = EvalPrim(binding_node);
  DataType dtype = DataType::Int(32);
  if (Node d = args.Kw("dtype"); !IsNull(d)) dtype = ToDType(Eval(d), d);
  return AxisValue(dom, binding, type, dtype);
}

Value Parser::LoopCall(std::string_view name, const Args& args) {
  Node n = args.call;
  auto loops = std::make_shared<std::vector<LoopSpec>>();
  auto make = [&](Value lo_v, Value hi_v, Node lo_n, Node hi_n, bool has_lo) {
    LoopSpec s;
    PrimExpr lo, hi;
    if (has_lo) {
      if (lo_v.is_number() && !hi_v.is_number()) {
        hi = ToPrim(hi_v, hi_n);
        lo = ToPrimAs(lo_v, hi->dtype, lo_n);
      } else {
        lo = ToPrim(lo_v, lo_n);
        hi = ToPrimAs(hi_v, lo->dtype, hi_n);
      }
    } else {
      hi = ToPrim(hi_v, hi_n);
      lo = make_const(hi->dtype, int64_t(0));
    }
    if (!lo->dtype.is_integer() || !hi->dtype.is_integer()) Fail(hi_n, "loop bounds must be integers");
    MatchTypes(lo, hi);
    s.min = lo;
    s.extent = RangeExtent(lo, hi);
    s.dtype = lo->dtype;
    return s;
  };
  if (name == "T.grid") {
    for (Node a : args.pos) {
      Value v = Eval(a);
      if (v.is_seq() && v.items.size() == 2) {
        LoopSpec s = make(v.items[0], v.items[1], a, a, true);
        loops->push_back(s);
      } else {
        loops->push_back(make(Value(), v, a, a, false));
      }
    }
    if (loops->empty()) Fail(n, "T.grid needs at least one extent");
  } else {
    std::vector<Node> pos = args.pos;
    std::string tag;
    if (name == "T.thread_binding") {
      if (Node t = args.Kw("thread"); !IsNull(t)) {
        tag = ToStr(Eval(t), t);
      } else if (!pos.empty() && Kind(pos.back()) == K::kString) {
        tag = ToStr(Eval(pos.back()), pos.back());
        pos.pop_back();
      } else {
        Fail(n, "T.thread_binding needs a thread tag, e.g. thread=\"threadIdx.x\"");
      }
    }
    size_t max_pos = name == "range" ? 3 : 2;
    if (pos.empty() || pos.size() > max_pos) {
      Fail(n, std::string(name) + " expects " + (name == "range" ? "1 to 3" : "1 or 2") +
                  " positional arguments, got " + std::to_string(pos.size()));
    }
    LoopSpec s = pos.size() == 1 ? make(Value(), Eval(pos[0]), pos[0], pos[0], false)
                                 : make(Eval(pos[0]), Eval(pos[1]), pos[0], pos[1], true);
    Node step = pos.size() == 3 ? pos[2] : args.Kw("step");
    if (!IsNull(step)) s.step = ToPrimAs(Eval(step), s.dtype, step);
    s.thread = tag;
    if (name == "T.parallel") s.kind = ForKind::kParallel;
    else if (name == "T.vectorized") s.kind = ForKind::kVectorized;
    else if (name == "T.unroll") s.kind = ForKind::kUnrolled;
    else if (name == "T.thread_binding") s.kind = ForKind::kThreadBinding;
    if (Node a = args.Kw("annotations"); !IsNull(a)) {
      ObjectRef m = ToAttrValue(Eval(a), a);
      if (auto* map = m.as<ir::MapObj>()) s.annotations = map->items;
      else if (m.defined()) Fail(a, "annotations= expects a dict");
    }
    if (Node u = args.Kw("unroll"); !IsNull(u)) {
      Value uv = Eval(u);
      if (uv.kind == VK::kBool && !uv.i) s.annotations["disable_unroll"] = ir::MakeBool(true);
      else if (uv.kind == VK::kBool) s.annotations["pragma_unroll"] = ir::MakeBool(true);
      else s.annotations["pragma_unroll"] = ToAttrValue(uv, u);
    }
    loops->push_back(s);
  }
  if (Node d = args.Kw("dtype"); !IsNull(d)) {
    DataType t = ToDType(Eval(d), d);
    for (auto& s : *loops) {
      s.dtype = t;
      s.has_dtype = true;
    }
  }
  for (const auto& [key, node] : args.kw) {
    if (key != "dtype" && key != "annotations" && key != "unroll" && key != "step" && key != "thread") {
      Fail(node, std::string(name) + ": unknown keyword '" + std::string(key) + "'");
    }
  }
  Value v;
  v.kind = VK::kLoops;
  v.loops = loops;
  return v;
}

}  // namespace wb::script::detail
