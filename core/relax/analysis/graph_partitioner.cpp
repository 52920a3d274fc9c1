#include "relax/analysis/graph_partitioner.h"

#include <stdexcept>

namespace wb::relax {

namespace {

OpPatternKind CombinePattern(OpPatternKind a, OpPatternKind b) { return int(a) >= int(b) ? a : b; }

bool AtMost(OpPatternKind kind, OpPatternKind bound) { return int(kind) <= int(bound); }

}  // namespace

// --- IndexedForwardGraph -------------------------------------------------------------------------

IndexedForwardGraph::Node* IndexedForwardGraph::AddNode(const ir::Object* ref,
                                                        OpPatternKind pattern, bool extern_ref) {
  if (node_map.count(ref)) throw std::logic_error("FuseOps: a value is defined twice in the graph");
  auto node = std::make_unique<Node>();
  node->ref = ref;
  node->index = post_dfs_order.size();
  node->pattern = pattern;
  node->extern_ref = extern_ref;
  Node* raw = node.get();
  post_dfs_order.push_back(std::move(node));
  node_map[ref] = raw;
  return raw;
}

IndexedForwardGraph::Node* IndexedForwardGraph::Find(const ir::Object* ref) const {
  auto it = node_map.find(ref);
  return it == node_map.end() ? nullptr : it->second;
}

void IndexedForwardGraph::AddEdge(Node* from, Node* to, OpPatternKind pattern) {
  from->outputs.push_back(Edge{to, pattern});
}

// --- DominatorTree ---------------------------------------------------------------------------

namespace {

using DNode = DominatorTree::Node;

DNode* LeastCommonAncestor(DNode* lhs, DNode* rhs, OpPatternKind* pattern) {
  while (lhs != rhs) {
    if (!lhs || !rhs) return nullptr;
    if (lhs->depth < rhs->depth) {
      *pattern = CombinePattern(*pattern, rhs->pattern);
      rhs = rhs->parent;
    } else if (rhs->depth < lhs->depth) {
      *pattern = CombinePattern(*pattern, lhs->pattern);
      lhs = lhs->parent;
    } else {
      *pattern = CombinePattern(*pattern, lhs->pattern);
      *pattern = CombinePattern(*pattern, rhs->pattern);
      lhs = lhs->parent;
      rhs = rhs->parent;
    }
  }
  return lhs;
}

}  // namespace

DominatorTree DominatorTree::PostDom(const IndexedForwardGraph& graph) {
  DominatorTree tree;
  size_t n = graph.post_dfs_order.size();
  tree.nodes.resize(n);
  // Consumers come later in post-DFS order, so walking backwards sees them first.
  for (size_t i = n; i-- > 0;) {
    const IndexedForwardGraph::Node* gnode = graph.post_dfs_order[i].get();
    auto node = std::make_unique<Node>();
    node->gnode = gnode;
    if (gnode->extern_ref) {
      node->depth = 1;
      node->parent = nullptr;
      node->pattern = OpPatternKind::kOpaque;
    } else {
      OpPatternKind pattern = OpPatternKind::kElemWise;
      DNode* parent = nullptr;
      for (size_t k = 0; k < gnode->outputs.size(); ++k) {
        const auto& edge = gnode->outputs[k];
        DNode* out = tree.nodes[edge.node->index].get();
        parent = k == 0 ? out : LeastCommonAncestor(parent, out, &pattern);
        pattern = CombinePattern(pattern, edge.pattern);
      }
      node->depth = parent ? parent->depth + 1 : 1;
      node->parent = parent;
      node->pattern = pattern;
    }
    tree.nodes[i] = std::move(node);
  }
  return tree;
}

// --- GraphPartitioner ------------------------------------------------------------------------

GraphPartitioner::Group* GraphPartitioner::Group::FindRoot() {
  Group* root = this;
  while (root->parent) root = root->parent;
  for (Group* p = this; p != root;) {
    Group* next = p->parent;
    p->parent = root;
    p = next;
  }
  return root;
}

template <typename F>
bool GraphPartitioner::CheckPathRec(const GNode* src, const GNode* sink, F fcond) {
  if (visited_.count(src)) return true;
  visited_[src] = true;
  Group* group = groups_[src->index]->FindRoot();
  if (!fcond(group->pattern, src == sink)) return false;
  if (src == sink) return true;
  for (const auto& edge : src->outputs) {
    if (!CheckPathRec(edge.node, sink, fcond)) return false;
  }
  return true;
}

template <typename F>
bool GraphPartitioner::CheckPath(const GNode* src, const GNode* sink, F fcond) {
  visited_.clear();
  for (const auto& edge : src->outputs) {
    if (!CheckPathRec(edge.node, sink, fcond)) return false;
  }
  return true;
}

void GraphPartitioner::MergeFromTo(Group* child, Group* parent) {
  child = child->FindRoot();
  parent = parent->FindRoot();
  if (child == parent) return;
  parent->num_nodes += child->num_nodes;
  child->parent = parent;
  if (child->anchor_ref) {
    parent->anchor_ref = child->anchor_ref;
    parent->pattern = CombinePattern(child->pattern, parent->pattern);
  }
}

void GraphPartitioner::CommitFuseRec(const GNode* src, const GNode* sink, Group* target) {
  if (src == sink || visited_.count(src)) return;
  visited_[src] = true;
  MergeFromTo(groups_[src->index], target);
  for (const auto& edge : src->outputs) CommitFuseRec(edge.node, sink, target);
}

void GraphPartitioner::CommitFuse(const GNode* src, const GNode* sink) {
  visited_.clear();
  CommitFuseRec(src, sink, groups_[sink->index]);
}

size_t GraphPartitioner::CountNodesUptoSink(const GNode* src, const GNode* sink) {
  if (src == sink || visited_.count(src)) return 0;
  visited_[src] = true;
  size_t sum = groups_[src->index]->num_nodes;
  for (const auto& edge : src->outputs) sum += CountNodesUptoSink(edge.node, sink);
  return sum;
}

size_t GraphPartitioner::CountFusedNodesWithNewChild(const GNode* child, const GNode* dom_parent) {
  visited_.clear();
  return groups_[dom_parent->index]->FindRoot()->num_nodes + CountNodesUptoSink(child, dom_parent);
}

std::vector<GraphPartitioner::Group*> GraphPartitioner::Partition(
    const IndexedForwardGraph& graph) {
  storage_.clear();
  groups_.clear();
  for (const auto& node : graph.post_dfs_order) {
    auto group = std::make_unique<Group>();
    group->pattern = node->pattern;
    group->root_ref = node->ref;
    if (node->pattern == OpPatternKind::kOutEWiseFusable) group->anchor_ref = node->ref;
    groups_.push_back(group.get());
    storage_.push_back(std::move(group));
  }
  if (opt_level_ == 0) return groups_;
  DominatorTree tree = DominatorTree::PostDom(graph);
  for (int phase = 0; phase < 3; ++phase) RunFuse(graph, tree, phase);
  return groups_;
}

void GraphPartitioner::RunFuse(const IndexedForwardGraph& graph, const DominatorTree& tree,
                               int phase) {
  using K = OpPatternKind;
  for (size_t nid = 0; nid < groups_.size(); ++nid) {
    const GNode* gnode = graph.post_dfs_order[nid].get();
    const DominatorTree::Node* dom = tree.nodes[nid].get();
    Group* group = groups_[nid];
    if (group->pattern == K::kOpaque) continue;
    if (!dom->parent) continue;
    const GNode* sink = dom->parent->gnode;
    size_t sink_index = sink->index;

    if (CountFusedNodesWithNewChild(gnode, sink) > max_fuse_depth_) continue;

    if (phase == 2) {
      // Injective nodes join an intermediate tuple that already fused into injective consumers.
      if (!AtMost(group->pattern, K::kInjective)) continue;
      Group* sink_group = groups_[sink_index];
      Group* sink_root = sink_group->FindRoot();
      if (sink_root->pattern == K::kTuple) continue;
      if (sink_group->pattern == K::kTuple && AtMost(sink_root->pattern, K::kInjective)) {
        auto fcond = [](K kind, bool) { return AtMost(kind, K::kInjective); };
        if (CheckPath(gnode, sink, fcond)) CommitFuse(gnode, sink);
      }
      continue;
    }

    if (group->FindRoot() == groups_[sink_index]->FindRoot()) continue;
    if (groups_[sink_index]->pattern == K::kTuple) continue;

    if (group->pattern == K::kOutEWiseFusable) {
      if (phase != 0) continue;
      // A matmul/conv takes an elementwise epilogue when everything on the way is broadcast.
      if (dom->pattern == K::kElemWise) {
        auto fcond = [](K kind, bool) { return AtMost(kind, K::kBroadcast); };
        if (CheckPath(gnode, sink, fcond)) CommitFuse(gnode, sink);
      }
    } else if (AtMost(group->pattern, K::kBroadcast)) {
      if (AtMost(dom->pattern, K::kInjective) || dom->pattern == K::kCommReduce) {
        auto fcond = [](K kind, bool is_sink) {
          if (!is_sink) return AtMost(kind, K::kInjective);
          return AtMost(kind, K::kBroadcast) || kind == K::kCommReduce || kind == K::kInjective ||
                 kind == K::kOutEWiseFusable;
        };
        if (CheckPath(gnode, sink, fcond)) CommitFuse(gnode, sink);
      }
    } else if (group->pattern == K::kInjective || group->pattern == K::kTuple) {
      // Injective fusion waits for phase 1 so that matmul/conv epilogues form first.
      if (phase != 1) continue;
      auto fcond = [](K kind, bool) { return AtMost(kind, K::kInjective); };
      if (CheckPath(gnode, sink, fcond)) CommitFuse(gnode, sink);
    }
    // A reduction (kCommReduce) starts no fusion of its own: it is a sink.
  }
}

}  // namespace wb::relax
