// Operator fusion's graph partitioning (TVM's GraphPartitioner): which operators of a dataflow
// graph run as one kernel.
//
// The graph is the dataflow of one block, in post-DFS (topological) order; each node carries the
// OpPatternKind of the operator that produces it and each edge the pattern of the consumer. The
// hard case is a node whose value takes several paths that join later (a diamond): it may only
// join a group when every path to the join is fusable. So each node looks at its immediate
// post-dominator (the closest node that every path from it reaches, computed by LCA over the
// reversed DAG) and fuses with it when all nodes between them satisfy the rules of its pattern:
//  - phase 0: an out-elementwise-fusable node (matmul, conv) takes an elementwise post-dominator
//    when everything in between is at most broadcast;
//  - every phase: an elementwise/broadcast node fuses into an injective, reduction or
//    out-elementwise-fusable sink when the paths are at most injective;
//  - phase 1: injective (and tuple) nodes fuse along paths that are all injective;
//  - phase 2: injective nodes fuse into intermediate tuples.
// Opaque nodes never fuse, nodes referenced from outside (parameters, block outputs) have no
// post-dominator, and a group never grows past `max_fuse_depth` nodes.
#pragma once

#include <cstddef>
#include <memory>
#include <unordered_map>
#include <vector>

#include "relax/op/registry.h"

namespace wb::relax {

struct IndexedForwardGraph {
  struct Node;
  struct Edge {
    Node* node = nullptr;
    OpPatternKind pattern = OpPatternKind::kOpaque;  // the consumer's pattern
  };
  struct Node {
    const ir::Object* ref = nullptr;  // the var (or leaf) this node stands for
    size_t index = 0;                 // position in post_dfs_order
    bool extern_ref = false;          // used outside the graph: cannot be fused away
    OpPatternKind pattern = OpPatternKind::kOpaque;
    std::vector<Edge> outputs;
  };

  // Creates a node for `ref` (once per ref) and appends it to the post-DFS order.
  Node* AddNode(const ir::Object* ref, OpPatternKind pattern, bool extern_ref);
  Node* Find(const ir::Object* ref) const;
  void AddEdge(Node* from, Node* to, OpPatternKind pattern);

  std::vector<std::unique_ptr<Node>> post_dfs_order;
  std::unordered_map<const ir::Object*, Node*> node_map;
};

// The post-dominator tree of the graph: `parent` is the immediate post-dominator (null for
// external nodes and for nodes whose paths never join), `pattern` the most general edge
// pattern on the way to it.
struct DominatorTree {
  struct Node {
    const IndexedForwardGraph::Node* gnode = nullptr;
    Node* parent = nullptr;
    int depth = 0;
    OpPatternKind pattern = OpPatternKind::kOpaque;
  };
  static DominatorTree PostDom(const IndexedForwardGraph& graph);
  std::vector<std::unique_ptr<Node>> nodes;  // parallel to post_dfs_order
};

class GraphPartitioner {
 public:
  struct Group {
    Group* parent = nullptr;  // union-find
    OpPatternKind pattern = OpPatternKind::kOpaque;
    const ir::Object* root_ref = nullptr;
    // The out-elementwise-fusable node of the group, if any: a group holds at most one.
    const ir::Object* anchor_ref = nullptr;
    size_t num_nodes = 1;
    Group* FindRoot();
  };

  // `opt_level` 0 fuses nothing.
  GraphPartitioner(int opt_level, size_t max_fuse_depth)
      : opt_level_(opt_level), max_fuse_depth_(max_fuse_depth) {}

  // One group per node (parallel to post_dfs_order); FindRoot() gives the fused group. The
  // groups live as long as the partitioner.
  std::vector<Group*> Partition(const IndexedForwardGraph& graph);

 private:
  using GNode = IndexedForwardGraph::Node;
  template <typename F>
  bool CheckPath(const GNode* src, const GNode* sink, F fcond);
  template <typename F>
  bool CheckPathRec(const GNode* src, const GNode* sink, F fcond);
  void CommitFuse(const GNode* src, const GNode* sink);
  void CommitFuseRec(const GNode* src, const GNode* sink, Group* target);
  void MergeFromTo(Group* child, Group* parent);
  size_t CountNodesUptoSink(const GNode* src, const GNode* sink);
  size_t CountFusedNodesWithNewChild(const GNode* child, const GNode* dom_parent);
  void RunFuse(const IndexedForwardGraph& graph, const DominatorTree& tree, int phase);

  int opt_level_;
  size_t max_fuse_depth_;
  std::vector<std::unique_ptr<Group>> storage_;
  std::vector<Group*> groups_;
  std::unordered_map<const GNode*, bool> visited_;
};

}  // namespace wb::relax
