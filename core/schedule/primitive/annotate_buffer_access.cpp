// annotate_buffer_access (primitives.h): replace the region a block declares for one of its
// buffers by ranges given as a lambda of its iterators, and mark it explicit, as TVM does.
#include <algorithm>
#include <cctype>

#include "arith/analyzer.h"
#include "schedule/block_scope.h"
#include "schedule/primitive/cache.h"
#include "schedule/primitive/primitives.h"
#include "schedule/recipe.h"
#include "tir/op.h"

namespace wb::schedule {

using namespace tir;

namespace {

const char* kPrim = "annotate-buffer-access";

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

// The items of `text` separated by commas outside brackets.
std::vector<std::string> SplitTopLevel(std::string_view text) {
  std::vector<std::string> items;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      items.push_back(Trim(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  std::string last = Trim(text.substr(start));
  if (!last.empty()) items.push_back(last);
  return items;
}

// `text` without one pair of enclosing brackets `open`...`close` matching each other; empty
// when it is not so enclosed.
std::optional<std::string> Unwrap(const std::string& text, char open, char close) {
  if (text.size() < 2 || text.front() != open || text.back() != close) return std::nullopt;
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(' || text[i] == '[') ++depth;
    if (text[i] == ')' || text[i] == ']') --depth;
    if (depth == 0 && i + 1 < text.size()) return std::nullopt;
  }
  return text.substr(1, text.size() - 2);
}

}  // namespace

IndexMap ParseRangesLambda(std::string_view text, DataType dtype, std::string* error) {
  std::string s = Trim(text);
  size_t colon = std::string::npos;
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '(' || s[i] == '[') ++depth;
    if (s[i] == ')' || s[i] == ']') --depth;
    if (s[i] == ':' && depth == 0) {
      colon = i;
      break;
    }
  }
  if (s.rfind("lambda", 0) != 0 || colon == std::string::npos) {
    *error = "gen_new_ranges must be a lambda of the block's iterators";
    return {};
  }
  std::string body = Trim(s.substr(colon + 1));
  std::optional<std::string> inner = Unwrap(body, '(', ')');
  if (!inner) inner = Unwrap(body, '[', ']');
  if (!inner) {
    *error = "gen_new_ranges must return a list of ranges: (start, stop) pairs or points";
    return {};
  }
  std::string flat;
  for (const std::string& item : SplitTopLevel(*inner)) {
    std::optional<std::string> pair = Unwrap(item, '(', ')');
    std::vector<std::string> bounds = pair ? SplitTopLevel(*pair) : std::vector<std::string>{};
    std::string lo, hi;
    if (bounds.size() == 2) {
      lo = bounds[0];
      hi = bounds[1];
    } else {
      lo = item;
      hi = "(" + item + ") + 1";
    }
    flat += (flat.empty() ? "" : ", ") + lo + ", " + hi;
  }
  size_t offset = 0;
  IndexMap map =
      ParseIndexMapLambda(s.substr(0, colon) + ": (" + flat + ")", dtype, error, &offset);
  return map;
}

void AnnotateBufferAccess(Schedule& sch, const SBlockRV& block_rv, int buffer_index,
                          const std::string& buf_type, const IndexMap& gen_new_ranges) {
  if (buf_type != "read" && buf_type != "write") {
    throw std::invalid_argument("annotate_buffer_access: buf_type must be \"read\" or \"write\", "
                                "not \"" + buf_type + "\"");
  }
  bool is_read = buf_type == "read";
  SBlock block = sch.Get(block_rv);
  Buffer buffer = NthAccessBuffer(kPrim, block.get(), buffer_index, is_read);
  if (gen_new_ranges->initial_indices.size() != block->iter_vars.size()) {
    throw ScheduleError(kPrim, "The lambda takes " +
                                   std::to_string(gen_new_ranges->initial_indices.size()) +
                                   " iterators, but block " + Quote(block.get()) + " has " +
                                   std::to_string(block->iter_vars.size()),
                        block->span);
  }
  if (gen_new_ranges->final_indices.size() != 2 * buffer->ndim()) {
    throw ScheduleError(kPrim, "The lambda gives " +
                                   std::to_string(gen_new_ranges->final_indices.size() / 2) +
                                   " ranges, but buffer " + buffer->name + " has " +
                                   std::to_string(buffer->ndim()) + " dimensions",
                        block->span);
  }
  std::vector<PrimExpr> iters;
  for (const IterVar& iv : block->iter_vars) iters.push_back(iv->var);
  std::vector<PrimExpr> bounds = MapIndices(gen_new_ranges, iters);
  arith::Analyzer analyzer;
  std::vector<Range> region;
  for (size_t i = 0; i < bounds.size(); i += 2) {
    region.push_back(ir::MakeRange(bounds[i], analyzer.Simplify(sub(bounds[i + 1], bounds[i]))));
  }
  SBlock annotated = block;
  SBlockNode* n = annotated.CopyOnWrite();
  std::vector<BufferRegion>& regions = is_read ? n->reads : n->writes;
  regions[buffer_index] = MakeBufferRegion(buffer, region);
  std::string key = is_read ? "explicit_read_region" : "explicit_write_region";
  std::vector<ObjectRef> indices;
  if (auto it = n->annotations.find(key); it != n->annotations.end()) {
    if (auto* arr = it->second.as<ir::ArrayObj>()) indices = arr->items;
  }
  bool present = std::any_of(indices.begin(), indices.end(), [&](const ObjectRef& o) {
    auto* i = o.as<ir::IntObj>();
    return i && i->value == buffer_index;
  });
  if (!present) indices.push_back(ir::MakeInt(buffer_index));
  n->annotations[key] = ir::MakeArray(indices);
  sch.Replace(block.get(), annotated);

  // TVM prints the ranges as `lambda vi, vj: [(lo, hi), ...]`.
  std::string text = IndexMapLambdaText(gen_new_ranges);
  size_t colon = text.find(':');
  std::string head = text.substr(0, colon);
  std::string tuple = Trim(text.substr(colon + 1));
  std::vector<std::string> exprs = SplitTopLevel(Unwrap(tuple, '(', ')').value_or(tuple));
  std::string ranges;
  for (size_t i = 0; i + 1 < exprs.size(); i += 2) {
    ranges += (i ? ", (" : "(") + exprs[i] + ", " + exprs[i + 1] + ")";
  }
  sch.Record({"annotate_buffer_access",
              {{"block", TraceValue::Block(block_rv.id)},
               {"buffer_index", TraceValue::Int(buffer_index)},
               {"buf_type", TraceValue::String(buf_type)},
               {"gen_new_ranges", TraceValue::Raw(head + ": [" + ranges + "]")}},
              {},
              false});
}

namespace {

RecipeMethodRegistrar reg_annotate_buffer_access(
    "annotate_buffer_access",
    {{"block", "buffer_index", "buf_type", "gen_new_ranges"}, false, RecipeReturns::kNothing,
     [](Schedule& sch, RecipeArgs& args) -> std::vector<RecipeRV> {
       SBlockRV block = args.Block("block");
       const RecipeValue& m = args.Require("gen_new_ranges");
       if (m.kind != RecipeValue::Kind::kLambda) {
         throw RecipeArgs::TypeError(m, "gen_new_ranges", "a lambda");
       }
       SBlock b = sch.Get(block);
       DataType dtype = b->iter_vars.empty() ? DataType::Int(32) : b->iter_vars[0]->var->dtype;
       std::string error;
       IndexMap map = ParseRangesLambda(m.s, dtype, &error);
       if (!map.defined()) throw RecipeError{error, m.begin, m.end};
       AnnotateBufferAccess(sch, block, static_cast<int>(args.Int("buffer_index")),
                            args.String("buf_type"), map);
       return {};
     }},
    {"annotations",
     "declare the region a block accesses of a buffer (read or write), as ranges of its iterators",
     {{"block", RecipeParamKind::kBlock, "the block", ""},
      {"buffer_index", RecipeParamKind::kInt, "the index into the block's reads or writes", ""},
      {"buf_type", RecipeParamKind::kString, "\"read\" or \"write\"", ""},
      {"gen_new_ranges", RecipeParamKind::kIndexMap,
       "lambda of the iterators giving (start, stop) per dimension", ""}}});

}  // namespace
}  // namespace wb::schedule
