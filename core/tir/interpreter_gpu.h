// Internal to the reference interpreter: running GPU functions. Thread launches
// (`T.launch_thread` / thread_extent attributes and loops bound to blockIdx/threadIdx) run once
// per block index, blocks one after another; the threads of one block run as a team of
// coroutines that take turns (each runs until a synchronisation point), so a run is
// deterministic while every thread still waits at T.tvm_storage_sync for all the others, and
// warp shuffles exchange values between the lanes of a warp of 32 in lockstep. Shared-scope memory is checked for races: a thread that touches
// a byte another thread wrote (or read, for a write) since the last barrier stops the run with
// a diagnostic naming the buffer, so a missing barrier is reported, not silently tolerated.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tir/interpreter_machine.h"

namespace wb::tir::interp {

// The launch axes: blockIdx.{x,y,z} then threadIdx.{x,y,z}; -1 for other tags (vthread, ...).
int LaunchAxisOf(const std::string& tag);
inline bool IsThreadAxis(int axis) { return axis >= 3; }

// What the compiler knows about a thread launch statement.
struct LaunchInfo {
  int axis = -1;
  std::string tag;
  int var_slot = -1;
  DataType var_dtype;
  ExprFn min;     // null: 0
  ExprFn extent;
  StmtFn body;
  Span span;
  // For a threadIdx launch: the other threadIdx axes launched inside the body (first extent
  // found per axis), so that one launch forks the whole block's threads at once.
  std::vector<std::pair<int, ExprFn>> inner_thread_axes;
  // The body synchronises or touches shared memory: its threads must run as a team. Otherwise
  // they run one after another in the calling thread, which gives the same result faster.
  bool needs_team = false;
};

// Compile-time scan of a launch's body: which thread axes it launches and whether it needs a
// team (barriers, shuffles, shared-scope buffers).
struct LaunchScan {
  std::vector<std::pair<int, PrimExpr>> thread_axes;
  bool needs_team = false;
};
LaunchScan ScanLaunchBody(const Stmt& body);

Flow RunLaunch(Machine* machine, const LaunchInfo& info, Frame& frame);

// T.tvm_storage_sync(scope) inside a team: "shared"/"global" wait for the whole block, "warp"
// for the warp. Outside a team (threads run one after another) it does nothing.
void StorageSync(const std::string& scope, const void* site, const Span& span);

enum class ShuffleKind { kIndex, kUp, kDown };
// One lane's part in a warp shuffle; outside a team the thread is alone in its warp.
Value WarpShuffle(ShuffleKind kind, const Value& value, int64_t lane_or_delta, int64_t width,
                  const Span& span);
// The active lanes of the calling thread's warp.
int64_t WarpActiveMask();

// Race check of an access to `storage` (which has a shadow: shared scope) at [byte, byte+n).
void CheckSharedAccess(Storage* storage, int64_t byte, int64_t n, bool write, const Span& span);

// Launch extents given by a kernel launch (T.call_packed of a device function): the body's
// own thread_extent for each axis must agree. Set for the duration of one device call.
struct LaunchOverride {
  bool given[6] = {};
  int64_t extent[6] = {};
};
// The previous override, restored by the caller.
LaunchOverride* SetLaunchOverride(LaunchOverride* override_);

// Storage for a shared-scope buffer allocated inside a team: one per block, handed to every
// thread (null outside a team: allocate as usual).
Storage* TeamSharedStorage(const void* key, const std::string& name, int64_t bytes,
                           const Span& span);
// Whether the calling thread is inside a team (a block's threads running together).
bool InTeam();

}  // namespace wb::tir::interp
