// The schedule primitives as the workbench offers them from the schedule tree: what each applies
// to, the arguments it asks for (with their kinds, docs and defaults), the choices for those
// arguments given the current tree and selection, and a composer that turns a primitive, a
// selection and the argument values into a self-contained recipe step.
//
// Everything here is read off the recipe reader's method descriptions (schedule::RecipeDoc, given
// where each primitive registers its recipe method), so a primitive with a description appears in
// the menu and the form without any code here; nothing is a second table to keep in step.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "schedule/recipe.h"
#include "workbench/schedule_session.h"

namespace wb::workbench {

// What a primitive is applied to: the selection fills the leading parameters.
enum class ScheduleTarget {
  kLoop,          // split, parallel, rfactor, blockize, ...: the selected loop
  kLoops,         // fuse, reorder: loops of the selected loop's nest, named in the form
  kBlock,         // compute_inline, cache_read, set_scope, ...: the selected block
  kBlockAndLoop,  // compute_at, decompose_reduction: the selected block and a loop from the form
  kBlockOrLoop,   // annotate, add_unit_loop: the selected block or loop
};

struct ScheduleParam {
  std::string name;  // the recipe keyword ("loops" for fuse/reorder's positional loops)
  schedule::RecipeParamKind kind;
  std::string doc;
  std::string dflt;  // Python text of the default; empty: required
};

struct SchedulePrimitive {
  std::string name;
  std::string group;  // "loop transformations", "loop kinds", "compute location", ...
  std::string summary;
  ScheduleTarget target;
  // The parameter the selection fills ("loop", "block", "target", "block_or_loop"), empty for
  // kLoops.
  std::string target_param;
  // The parameters the form asks for, in the method's order.
  std::vector<ScheduleParam> params;
};

// Every primitive a tree step can apply, grouped (loop transformations, loop kinds, compute
// location, caching, reduction, layout, annotations, GPU), then by name. Lookups (get_*) are part
// of every step rather than steps of their own, and sampling is left out: a sampled value is only
// useful to later statements of the same recipe, which a step from the tree does not have.
const std::vector<SchedulePrimitive>& ScheduleCatalog();
const SchedulePrimitive* FindSchedulePrimitive(const std::string& name);

// The primitives that apply to tree node `node` (a loop or a block), in catalog order: the target
// kind matches, a reduction primitive's block reduces, and every required argument with choices
// has at least one (compute_at on a block without consumers is not offered).
std::vector<const SchedulePrimitive*> PrimitivesFor(const std::vector<ScheduleTreeNode>& tree,
                                                    int node);

// A value an argument can take: what to show, and the text the composer takes.
struct ScheduleChoice {
  std::string label;
  std::string value;
};

// The choices for `param` of `prim` with `node` selected: the loops of the selection's nest
// (kLoop), of its consumers' or producers' nests (compute_at / reverse_compute_at, without loops
// that enclose the block itself), its read or written buffers ("A (read 0)"), the other blocks,
// thread axes, storage scopes, common annotation keys, True/False. Empty for free-form arguments.
std::vector<ScheduleChoice> ParamChoices(const SchedulePrimitive& prim, const ScheduleParam& param,
                                         const std::vector<ScheduleTreeNode>& tree, int node);

// The value the form starts with: the default (as composer text), else the first choice for a
// required argument with choices, else empty.
std::string InitialValue(const ScheduleParam& param, const std::vector<ScheduleChoice>& choices);
// An example of a value, for a free-form field's placeholder ("None, 32").
std::string ExampleValue(const ScheduleParam& param);

// Composes the step: the lookups for the selection (and for any other nest an argument names),
// then the call. `values` maps parameter names to composer text:
//   loops (kLoop, kConsumerLoop, kProducerLoop): a tree index, as the choices give it;
//   kLoops: loop names of the selection's nest, "i, j";  kBlockList: block names, "D, E";
//   buffers: an index or a buffer name (kBuffer: ("read", 0) or a name);  kFactors: "None, 32";
//   numbers and lists as written;  kBool: True/False;  strings as they are (quoted here).
// A missing or empty value takes the default (a required one is an error). Returns nullopt with
// `error` naming the primitive and the argument when a value is wrong.
std::optional<std::string> ComposeStep(const SchedulePrimitive& prim,
                                       const std::vector<ScheduleTreeNode>& tree, int node,
                                       const std::map<std::string, std::string>& values,
                                       const std::string& func_name, std::string* error);

}  // namespace wb::workbench
