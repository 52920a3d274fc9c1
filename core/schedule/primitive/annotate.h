// Helpers shared by the block-annotating and buffer-rewriting primitives of
// core/schedule/primitive (annotate.cpp, layout.cpp): TVM's buffer-index and storage-scope checks
// and a mutator that swaps one buffer for another in a subtree.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "schedule/schedule.h"
#include "tir/functor.h"

namespace wb::schedule::detail {

// The buffer of the block's `index`-th read (or write) region; BufferIndexOutOfRangeError
// otherwise ("The block `B` has 1 write regions, so `buffer_index` is required to be in [0, 1)...").
tir::Buffer NthAccessBuffer(const char* primitive, const tir::SBlock& block, int64_t index,
                            bool is_write);

// TVM's CheckStorageScope: "global", "shared", "local", "warp", "wmma.*", ... ("" = global).
bool IsValidStorageScope(const std::string& scope);

// The block (the given one or an ancestor, nearest first) whose alloc_buffers hold `buffer`;
// null when a function parameter or a match_buffer defines it.
tir::SBlock AllocatingBlock(const tir::PrimFunc& func, const tir::SBlockNode* block,
                            const tir::BufferNode* buffer);

// The blocks of `stmt`, each before the blocks inside it (so a match of a match comes after the
// match it refers to).
std::vector<const tir::SBlockNode*> BlocksOuterFirst(const tir::Stmt& stmt);

// Replaces buffers by others wherever they are used or defined (loads, stores, regions,
// allocations, match_buffer sources).
class BufferReplacer : public tir::StmtExprMutator {
 public:
  explicit BufferReplacer(std::unordered_map<const tir::BufferNode*, tir::Buffer> map)
      : map_(std::move(map)) {}

 protected:
  tir::Buffer VisitBufferUse(const tir::Buffer& b) override { return Map(b); }
  tir::Buffer VisitBufferDef(const tir::Buffer& b) override { return Map(b); }
  tir::Buffer Map(const tir::Buffer& b) const {
    auto it = map_.find(b.get());
    return it == map_.end() ? b : it->second;
  }
  std::unordered_map<const tir::BufferNode*, tir::Buffer> map_;
};

}  // namespace wb::schedule::detail
