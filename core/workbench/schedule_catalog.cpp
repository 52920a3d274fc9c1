#include "workbench/schedule_catalog.h"

#include "schedule/tensor_intrin.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

namespace wb::workbench {

using schedule::RecipeParamKind;

namespace {

// The menu's order of groups; a group not listed here comes after them.
const std::vector<std::string>& GroupOrder() {
  static const std::vector<std::string> order = {
      "loop transformations", "loop kinds", "compute location", "caching",
      "reduction",            "layout",     "tensorization",    "annotations",
      "GPU"};
  return order;
}

bool IsLoopKind(RecipeParamKind k) {
  return k == RecipeParamKind::kLoop || k == RecipeParamKind::kConsumerLoop ||
         k == RecipeParamKind::kProducerLoop;
}

// Builds a catalog entry from a method's description; nullopt for methods a tree step does not
// offer (lookups, sampling, and anything not applied to a block or loop).
std::optional<SchedulePrimitive> FromDoc(const std::string& name, const schedule::RecipeMethod& m,
                                         const schedule::RecipeDoc& doc) {
  if (doc.group == "lookup" || doc.group == "sampling" || doc.params.empty()) return std::nullopt;
  SchedulePrimitive p;
  p.name = name;
  p.group = doc.group;
  p.summary = doc.summary;
  RecipeParamKind first = doc.params[0].kind;
  if (m.varargs) {
    if (first != RecipeParamKind::kLoops) return std::nullopt;
    p.target = ScheduleTarget::kLoops;
  } else if (first == RecipeParamKind::kLoop) {
    p.target = ScheduleTarget::kLoop;
  } else if (first == RecipeParamKind::kBlockOrLoop) {
    p.target = ScheduleTarget::kBlockOrLoop;
  } else if (first == RecipeParamKind::kBlock) {
    bool loop_arg = std::any_of(doc.params.begin() + 1, doc.params.end(),
                                [](const schedule::RecipeParamDoc& d) { return IsLoopKind(d.kind); });
    p.target = loop_arg ? ScheduleTarget::kBlockAndLoop : ScheduleTarget::kBlock;
  } else {
    return std::nullopt;
  }
  if (!m.varargs) p.target_param = doc.params[0].name;
  for (size_t i = m.varargs ? 0 : 1; i < doc.params.size(); ++i) {
    const schedule::RecipeParamDoc& d = doc.params[i];
    p.params.push_back({d.name, d.kind, d.doc, d.dflt});
  }
  return p;
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// "a, b" / "[a, b]" / "(a, b)" into trimmed items (brackets dropped).
std::vector<std::string> Items(const std::string& text) {
  std::string s = Trim(text);
  if (s.size() >= 2 && ((s.front() == '[' && s.back() == ']') ||
                        (s.front() == '(' && s.back() == ')'))) {
    s = s.substr(1, s.size() - 2);
  }
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    item = Trim(item);
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

std::optional<int64_t> ParseInt(const std::string& text) {
  std::string s = Trim(text);
  size_t i = s.size() > 1 && (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (i >= s.size() || s.size() > 18) return std::nullopt;
  for (size_t k = i; k < s.size(); ++k) {
    if (!std::isdigit(static_cast<unsigned char>(s[k]))) return std::nullopt;
  }
  return std::stoll(s);
}

bool IsNumber(const std::string& s) {
  if (ParseInt(s)) return true;
  try {
    size_t used = 0;
    std::stod(s, &used);
    return used == s.size() && !s.empty();
  } catch (const std::exception&) {
    return false;
  }
}

bool IsTree(const std::vector<ScheduleTreeNode>& tree, int node) {
  return node >= 0 && node < static_cast<int>(tree.size());
}

bool IsLoop(const std::vector<ScheduleTreeNode>& tree, int node) {
  return IsTree(tree, node) && tree[node].kind == ScheduleTreeNode::Kind::kLoop;
}

bool IsBlock(const std::vector<ScheduleTreeNode>& tree, int node) {
  return IsTree(tree, node) && tree[node].kind == ScheduleTreeNode::Kind::kBlock;
}

// The block the selection is addressed through: itself, or the loop's address block.
int SelectionBlock(const std::vector<ScheduleTreeNode>& tree, int node) {
  if (IsBlock(tree, node)) return node;
  if (IsLoop(tree, node)) return tree[node].address_block;
  return -1;
}

bool Shares(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  return std::any_of(a.begin(), a.end(),
                     [&](const std::string& x) { return std::find(b.begin(), b.end(), x) != b.end(); });
}

// The blocks that read what `block` writes (consumers) or write what it reads (producers),
// judged by buffer name, as the tree knows the accesses.
std::vector<int> Neighbours(const std::vector<ScheduleTreeNode>& tree, int block, bool consumers) {
  std::vector<int> out;
  for (int i = 0; i < static_cast<int>(tree.size()); ++i) {
    if (i == block || tree[i].kind != ScheduleTreeNode::Kind::kBlock) continue;
    bool related = consumers ? Shares(tree[block].writes, tree[i].reads)
                             : Shares(tree[block].reads, tree[i].writes);
    if (related) out.push_back(i);
  }
  return out;
}

bool Encloses(const std::vector<ScheduleTreeNode>& tree, int ancestor, int node) {
  for (int p = tree[node].parent; p >= 0; p = tree[p].parent) {
    if (p == ancestor) return true;
  }
  return false;
}

std::string LoopLabel(const ScheduleTreeNode& loop) {
  return loop.name + " (" + (loop.min == "0" ? loop.extent : loop.min + " + " + loop.extent) + ")";
}

bool IsChoiceKind(RecipeParamKind k) {
  switch (k) {
    case RecipeParamKind::kLoop:
    case RecipeParamKind::kConsumerLoop:
    case RecipeParamKind::kProducerLoop:
    case RecipeParamKind::kBlock:
    case RecipeParamKind::kReadBuffer:
    case RecipeParamKind::kWriteBuffer:
    case RecipeParamKind::kBuffer:
    case RecipeParamKind::kTensorIntrin:
      return true;
    default:
      return false;
  }
}

// The names a step binds: the selection's block is `block` with loops `l<i>` (the selected loop
// `loop`), as schedule_session's builders name them; another block an argument reaches is
// `b<k>` with loops `b<k>_l<i>`.
class Names {
 public:
  // `selection_lines`: the selection's own lookup (LookupLines), binding block, l<i> and loop.
  Names(const std::vector<ScheduleTreeNode>& tree, int block, int selected_loop,
        const std::string& func, std::string selection_lines)
      : tree_(tree), func_(func), selection_lines_(std::move(selection_lines)) {
    order_.push_back(block);
    selected_loop_ = selected_loop;
  }

  // The variable of loop `loop`, addressing its block (a lookup is added for a new block).
  std::string Loop(int loop) {
    int block = tree_[loop].address_block;
    auto it = std::find(order_.begin(), order_.end(), block);
    size_t k = it - order_.begin();
    if (it == order_.end()) order_.push_back(block);
    if (k == 0) {
      return loop == selected_loop_ ? "loop" : "l" + std::to_string(tree_[loop].loop_index);
    }
    return "b" + std::to_string(k) + "_l" + std::to_string(tree_[loop].loop_index);
  }

  // The selection's lookup, then one for every other block a loop argument lives in.
  std::string Lines() const {
    std::string out = selection_lines_;
    for (size_t k = 1; k < order_.size(); ++k) {
      const ScheduleTreeNode& b = tree_[order_[k]];
      std::string var = "b" + std::to_string(k);
      out += var + " = sch.get_sblock(name=" + Quote(b.name) +
             (func_.empty() ? "" : ", func_name=" + Quote(func_)) + ")\n";
      if (b.loops.empty()) continue;
      for (size_t i = 0; i < b.loops.size(); ++i) {
        if (i) out += ", ";
        out += var + "_l" + std::to_string(i);
      }
      if (b.loops.size() == 1) out += ",";
      out += " = sch.get_loops(block=" + var + ")\n";
    }
    return out;
  }

 private:
  const std::vector<ScheduleTreeNode>& tree_;
  std::string func_;
  std::string selection_lines_;
  std::vector<int> order_;
  int selected_loop_ = -1;
};

struct Failure {
  std::string message;
};

}  // namespace

const std::vector<SchedulePrimitive>& ScheduleCatalog() {
  static const std::vector<SchedulePrimitive> catalog = [] {
    std::vector<SchedulePrimitive> out;
    for (const std::string& name : schedule::RecipeMethodNames()) {
      // Every method has a description: its registrar refuses one without.
      const schedule::RecipeDoc* doc = schedule::FindRecipeDoc(name);
      if (auto p = FromDoc(name, *schedule::FindRecipeMethod(name), *doc)) {
        out.push_back(std::move(*p));
      }
    }
    auto rank = [](const std::string& group) {
      const auto& order = GroupOrder();
      return std::find(order.begin(), order.end(), group) - order.begin();
    };
    std::stable_sort(out.begin(), out.end(), [&](const auto& a, const auto& b) {
      return rank(a.group) < rank(b.group);
    });
    return out;
  }();
  return catalog;
}

const SchedulePrimitive* FindSchedulePrimitive(const std::string& name) {
  for (const SchedulePrimitive& p : ScheduleCatalog()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::vector<const SchedulePrimitive*> PrimitivesFor(const std::vector<ScheduleTreeNode>& tree,
                                                    int node) {
  std::vector<const SchedulePrimitive*> out;
  if (!IsTree(tree, node)) return out;
  bool loop = IsLoop(tree, node);
  int block = SelectionBlock(tree, node);
  if (block < 0) return out;  // a loop that encloses no block cannot be named by a recipe
  for (const SchedulePrimitive& p : ScheduleCatalog()) {
    bool fits = false;
    switch (p.target) {
      case ScheduleTarget::kLoop:
        fits = loop;
        break;
      case ScheduleTarget::kLoops:
        fits = loop && tree[block].loops.size() >= 2;
        break;
      case ScheduleTarget::kBlock:
      case ScheduleTarget::kBlockAndLoop:
        fits = !loop;
        break;
      case ScheduleTarget::kBlockOrLoop:
        fits = true;
        break;
    }
    if (fits && p.group == "reduction") fits = tree[block].reduction;
    for (const ScheduleParam& param : p.params) {
      if (fits && param.dflt.empty() && IsChoiceKind(param.kind)) {
        fits = !ParamChoices(p, param, tree, node).empty();
      }
    }
    if (fits) out.push_back(&p);
  }
  return out;
}

std::vector<ScheduleChoice> ParamChoices(const SchedulePrimitive& prim, const ScheduleParam& param,
                                         const std::vector<ScheduleTreeNode>& tree, int node) {
  (void)prim;
  std::vector<ScheduleChoice> out;
  int block = SelectionBlock(tree, node);
  if (block < 0) return out;
  const ScheduleTreeNode& b = tree[block];
  switch (param.kind) {
    case RecipeParamKind::kLoop:
      for (int l : b.loops) out.push_back({LoopLabel(tree[l]), std::to_string(l)});
      break;
    case RecipeParamKind::kConsumerLoop:
    case RecipeParamKind::kProducerLoop: {
      bool consumers = param.kind == RecipeParamKind::kConsumerLoop;
      std::set<int> seen;
      for (int other : Neighbours(tree, block, consumers)) {
        for (int l : tree[other].loops) {
          // A loop around the block itself is no new location for it.
          if (Encloses(tree, l, block) || !seen.insert(l).second) continue;
          out.push_back({LoopLabel(tree[l]) + " of " + tree[other].name, std::to_string(l)});
        }
      }
      break;
    }
    case RecipeParamKind::kBlock:
    case RecipeParamKind::kBlockList:
      for (size_t i = 0; i < tree.size(); ++i) {
        if (tree[i].kind == ScheduleTreeNode::Kind::kBlock && static_cast<int>(i) != block) {
          out.push_back({tree[i].name, tree[i].name});
        }
      }
      break;
    case RecipeParamKind::kReadBuffer:
      for (size_t i = 0; i < b.reads.size(); ++i) {
        out.push_back({b.reads[i] + " (read " + std::to_string(i) + ")", std::to_string(i)});
      }
      break;
    case RecipeParamKind::kWriteBuffer:
      for (size_t i = 0; i < b.writes.size(); ++i) {
        out.push_back({b.writes[i] + " (write " + std::to_string(i) + ")", std::to_string(i)});
      }
      break;
    case RecipeParamKind::kBuffer:
      for (size_t i = 0; i < b.reads.size(); ++i) {
        out.push_back({b.reads[i] + " (read " + std::to_string(i) + ")",
                       "(\"read\", " + std::to_string(i) + ")"});
      }
      for (size_t i = 0; i < b.writes.size(); ++i) {
        out.push_back({b.writes[i] + " (write " + std::to_string(i) + ")",
                       "(\"write\", " + std::to_string(i) + ")"});
      }
      break;
    case RecipeParamKind::kThreadAxis:
      for (const char* base : {"threadIdx", "blockIdx", "vthread"}) {
        for (const char* axis : {".x", ".y", ".z"}) {
          std::string tag = std::string(base) + axis;
          out.push_back({tag, tag});
        }
      }
      break;
    case RecipeParamKind::kStorageScope:
      for (const char* scope : {"shared", "local", "global", "shared.dyn", "warp"}) {
        out.push_back({scope, scope});
      }
      break;
    case RecipeParamKind::kAnnKey:
      for (const char* key : {"pragma_auto_unroll_max_step", "pragma_unroll_explicit",
                              "software_pipeline_stage", "software_pipeline_order"}) {
        out.push_back({key, key});
      }
      break;
    case RecipeParamKind::kBool:
      out.push_back({"True", "True"});
      out.push_back({"False", "False"});
      break;
    case RecipeParamKind::kTensorIntrin:
      // Those whose description the selection matches (tensorize's target is the selection).
      for (const std::string& name : tree[node].tensor_intrins) out.push_back({name, name});
      break;
    default:
      break;
  }
  return out;
}

std::string InitialValue(const ScheduleParam& param, const std::vector<ScheduleChoice>& choices) {
  if (!param.dflt.empty()) return param.dflt == "None" ? std::string() : param.dflt;
  return choices.empty() ? std::string() : choices.front().value;
}

std::string ExampleValue(const ScheduleParam& param) {
  switch (param.kind) {
    case RecipeParamKind::kFactors: return "None, 32";
    case RecipeParamKind::kLoops: return "i, j";
    case RecipeParamKind::kBlockList: return "D, E";
    case RecipeParamKind::kIntList: return "32, 32, 32";
    case RecipeParamKind::kFloatList: return "0.5, 0.5";
    case RecipeParamKind::kIndexMap: return "lambda i, j: (j, i)";
    case RecipeParamKind::kAnnValue: return "16";
    case RecipeParamKind::kInt: return "0";
    default: return {};
  }
}

std::optional<std::string> ComposeStep(const SchedulePrimitive& prim,
                                       const std::vector<ScheduleTreeNode>& tree, int node,
                                       const std::map<std::string, std::string>& values,
                                       const std::string& func_name, std::string* error) {
  if (!IsTree(tree, node)) {
    *error = "nothing is selected in the schedule tree";
    return std::nullopt;
  }
  const ScheduleTreeNode& sel = tree[node];
  bool loop = sel.kind == ScheduleTreeNode::Kind::kLoop;
  bool wants_loop = prim.target == ScheduleTarget::kLoop || prim.target == ScheduleTarget::kLoops;
  bool wants_block =
      prim.target == ScheduleTarget::kBlock || prim.target == ScheduleTarget::kBlockAndLoop;
  if ((wants_loop && !loop) || (wants_block && loop)) {
    *error = prim.name + " applies to a " + (wants_loop ? "loop" : "block") + ", and '" +
             sel.name + "' is a " + (loop ? "loop" : "block");
    return std::nullopt;
  }
  std::optional<std::string> selection_lines = LookupLines(tree, node, func_name, error);
  if (!selection_lines) return std::nullopt;
  int block = SelectionBlock(tree, node);
  Names names(tree, block, loop ? node : -1, func_name, std::move(*selection_lines));
  std::vector<std::string> positional;
  std::vector<std::string> keywords;
  if (!prim.target_param.empty()) {
    keywords.push_back(prim.target_param + "=" + (loop ? "loop" : "block"));
  }
  try {
    for (const ScheduleParam& param : prim.params) {
      auto fail = [&](const std::string& why) -> Failure {
        return {prim.name + ": argument '" + param.name + "': " + why};
      };
      auto it = values.find(param.name);
      std::string text = it == values.end() ? std::string() : Trim(it->second);
      if (text.empty()) {
        if (param.dflt.empty()) throw fail("a value is required (" + param.doc + ")");
        continue;  // the method's default
      }
      std::string py;
      switch (param.kind) {
        case RecipeParamKind::kLoop:
        case RecipeParamKind::kConsumerLoop:
        case RecipeParamKind::kProducerLoop: {
          std::optional<int64_t> index = ParseInt(text);
          std::vector<ScheduleChoice> choices = ParamChoices(prim, param, tree, node);
          bool offered = std::any_of(choices.begin(), choices.end(),
                                     [&](const ScheduleChoice& c) { return c.value == text; });
          if (!index || !IsLoop(tree, static_cast<int>(*index)) || !offered) {
            std::string what = param.kind == RecipeParamKind::kLoop ? "of the nest of block '"
                               : param.kind == RecipeParamKind::kConsumerLoop
                                   ? "of a consumer of block '"
                                   : "of a producer of block '";
            std::string shown = index && IsLoop(tree, static_cast<int>(*index))
                                    ? "'" + tree[*index].name + "'"
                                    : "'" + text + "'";
            throw fail(shown + " is not a loop " + what + tree[block].name + "'");
          }
          py = names.Loop(static_cast<int>(*index));
          break;
        }
        case RecipeParamKind::kLoops: {
          for (const std::string& item : Items(text)) {
            // "i" is a loop around the selected block; "D.i" one around block D (merge takes
            // loops of several nests).
            int owner = block;
            std::string name = item;
            if (size_t dot = item.find('.'); dot != std::string::npos) {
              owner = -1;
              for (size_t n = 0; n < tree.size(); ++n) {
                if (tree[n].kind == ScheduleTreeNode::Kind::kBlock &&
                    tree[n].name == item.substr(0, dot)) {
                  owner = static_cast<int>(n);
                }
              }
              if (owner < 0) throw fail("there is no block named '" + item.substr(0, dot) + "'");
              name = item.substr(dot + 1);
            }
            int found = -1;
            for (int l : tree[owner].loops) {
              if (tree[l].name == name) found = l;
            }
            if (found < 0) {
              throw fail("'" + name + "' is not a loop around block '" + tree[owner].name + "'");
            }
            positional.push_back(names.Loop(found));
          }
          if (positional.empty()) throw fail("name the loops, e.g. " + ExampleValue(param));
          continue;
        }
        case RecipeParamKind::kBlock:
        case RecipeParamKind::kBlockList: {
          std::vector<std::string> items = Items(text);
          for (std::string& name : items) {
            bool known = std::any_of(tree.begin(), tree.end(), [&](const ScheduleTreeNode& n) {
              return n.kind == ScheduleTreeNode::Kind::kBlock && n.name == name;
            });
            if (!known) throw fail("there is no block named '" + name + "'");
            name = Quote(name);
          }
          if (param.kind == RecipeParamKind::kBlock) {
            if (items.size() != 1) throw fail("give one block name");
            py = items[0];
          } else {
            py = "[";
            for (size_t i = 0; i < items.size(); ++i) py += (i ? ", " : "") + items[i];
            py += "]";
          }
          break;
        }
        case RecipeParamKind::kReadBuffer:
        case RecipeParamKind::kWriteBuffer: {
          bool read = param.kind == RecipeParamKind::kReadBuffer;
          const std::vector<std::string>& buffers = read ? tree[block].reads : tree[block].writes;
          std::optional<int64_t> index = ParseInt(text);
          if (!index) {
            auto at = std::find(buffers.begin(), buffers.end(), text);
            if (at != buffers.end()) index = at - buffers.begin();
          }
          if (!index || *index < 0 || *index >= static_cast<int64_t>(buffers.size())) {
            throw fail("block '" + tree[block].name + "' " + (read ? "reads" : "writes") +
                       " no buffer '" + text + "' (it " + (read ? "reads" : "writes") + " " +
                       std::to_string(buffers.size()) + ")");
          }
          py = std::to_string(*index);
          break;
        }
        case RecipeParamKind::kBuffer: {
          std::vector<std::string> items = Items(text);
          for (std::string& s : items) {
            if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'')) s = s.substr(1, s.size() - 2);
          }
          if (items.size() == 2 && (items[0] == "read" || items[0] == "write")) {
            const auto& buffers = items[0] == "read" ? tree[block].reads : tree[block].writes;
            std::optional<int64_t> index = ParseInt(items[1]);
            if (!index || *index < 0 || *index >= static_cast<int64_t>(buffers.size())) {
              throw fail("block '" + tree[block].name + "' has no " + items[0] + " buffer " +
                         items[1]);
            }
            py = "(" + Quote(items[0]) + ", " + std::to_string(*index) + ")";
          } else if (items.size() == 1) {
            const ScheduleTreeNode& b = tree[block];
            bool known = std::find(b.reads.begin(), b.reads.end(), items[0]) != b.reads.end() ||
                         std::find(b.writes.begin(), b.writes.end(), items[0]) != b.writes.end();
            if (!known) {
              throw fail("block '" + b.name + "' accesses no buffer '" + items[0] + "'");
            }
            py = Quote(items[0]);
          } else {
            throw fail("give (\"read\" or \"write\", index) or a buffer name, got '" + text + "'");
          }
          break;
        }
        case RecipeParamKind::kInt: {
          std::optional<int64_t> v = ParseInt(text);
          if (!v) throw fail("'" + text + "' is not an integer");
          py = std::to_string(*v);
          break;
        }
        case RecipeParamKind::kIntList:
        case RecipeParamKind::kFloatList: {
          bool ints = param.kind == RecipeParamKind::kIntList;
          std::vector<std::string> items = Items(text);
          if (items.empty()) throw fail("give a list, e.g. " + ExampleValue(param));
          py = "[";
          for (size_t i = 0; i < items.size(); ++i) {
            if (ints ? !ParseInt(items[i]) : !IsNumber(items[i])) {
              throw fail("'" + items[i] + "' is not " + (ints ? "an integer" : "a number"));
            }
            py += (i ? ", " : "") + items[i];
          }
          py += "]";
          break;
        }
        case RecipeParamKind::kFactors: {
          std::string why;
          auto factors = ParseFactors(text, &why);
          if (!factors) throw fail(why);
          py = "[";
          for (size_t i = 0; i < factors->size(); ++i) {
            py += (i ? ", " : "") +
                  ((*factors)[i] ? std::to_string(*(*factors)[i]) : std::string("None"));
          }
          py += "]";
          break;
        }
        case RecipeParamKind::kThreadAxis: {
          std::vector<ScheduleChoice> axes = ParamChoices(prim, param, tree, node);
          bool known = std::any_of(axes.begin(), axes.end(),
                                   [&](const ScheduleChoice& c) { return c.value == text; });
          if (!known) {
            throw fail("'" + text + "' is not a thread axis (threadIdx.x, blockIdx.y, vthread.z, "
                       "...)");
          }
          py = Quote(text);
          break;
        }
        case RecipeParamKind::kStorageScope:
          for (char c : text) {
            if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_') {
              throw fail("'" + text + "' is not a storage scope (shared, local, global, ...)");
            }
          }
          py = Quote(text);
          break;
        case RecipeParamKind::kAnnKey:
        case RecipeParamKind::kString:
          py = Quote(text);
          break;
        case RecipeParamKind::kTensorIntrin: {
          std::vector<std::string> known = schedule::TensorIntrinNames();
          if (std::find(known.begin(), known.end(), text) == known.end()) {
            std::string list;
            for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
            throw fail("'" + text + "' is not a registered tensor intrinsic (" + list + ")");
          }
          py = Quote(text);
          break;
        }
        case RecipeParamKind::kBlockOrLoop:
          // Only ever the selection (the target parameter), never a form field.
          throw fail("a block or loop argument cannot be given in the form");
        case RecipeParamKind::kAnnValue: {
          // Numbers, booleans, lists and quoted strings as written; other text is a string.
          bool literal = IsNumber(text) || text == "True" || text == "False" ||
                         (text.front() == '[' && text.back() == ']') ||
                         (text.size() >= 2 && (text.front() == '"' || text.front() == '\'') &&
                          text.back() == text.front());
          py = literal ? text : Quote(text);
          break;
        }
        case RecipeParamKind::kIndexMap:
          if (text.rfind("lambda", 0) != 0 || text.find(':') == std::string::npos) {
            throw fail("write the index map as a lambda, e.g. " + ExampleValue(param));
          }
          py = text;
          break;
        case RecipeParamKind::kBool:
          if (text == "True" || text == "true" || text == "1") {
            py = "True";
          } else if (text == "False" || text == "false" || text == "0") {
            py = "False";
          } else {
            throw fail("'" + text + "' is not True or False");
          }
          break;
      }
      if (py == param.dflt) continue;  // the default need not be written
      keywords.push_back(param.name + "=" + py);
    }
  } catch (const Failure& f) {
    *error = f.message;
    return std::nullopt;
  }
  std::string call = "sch." + prim.name + "(";
  bool first = true;
  for (const auto* list : {&positional, &keywords}) {
    for (const std::string& a : *list) {
      call += (first ? "" : ", ") + a;
      first = false;
    }
  }
  call += ")\n";
  return names.Lines() + call;
}

}  // namespace wb::workbench
