// The reference interpreter's GPU model (see interpreter_gpu.h): thread launches, the team of
// a block's threads, barriers, warp shuffles and the shared-memory race check.
//
// A team's threads are coroutines (ucontext) on the calling OS thread: a thread runs until it
// reaches a synchronisation point or finishes, then the scheduler resumes the next ready thread
// in round-robin order. One OS thread keeps a run deterministic and cheap (a corpus transpose
// runs 1024 blocks of 256 threads), and needs no locks.
#include "tir/interpreter_gpu.h"

#include <sys/mman.h>
#include <ucontext.h>

#include <atomic>
#include <optional>
#include <unordered_map>

#include "tir/builtin.h"
#include "tir/functor.h"

namespace wb::tir::interp {

namespace {

constexpr int kWarpSize = 32;
constexpr int64_t kMaxThreadsPerBlock = 1024;
// Virtual size of a GPU thread's stack; pages are committed only when touched.
constexpr size_t kStackBytes = size_t{1} << 20;
const char* const kAxisTags[6] = {"blockIdx.x",  "blockIdx.y",  "blockIdx.z",
                                  "threadIdx.x", "threadIdx.y", "threadIdx.z"};

// Thrown in a team's thread when the team has failed: unwinds its stack without a message.
struct TeamAborted {};

enum class ThreadState : uint8_t { kNew, kReady, kBlockWait, kWarpWait, kDone };

struct Team;

// Which launch axes the running thread is inside of, and its index on each.
struct LaunchContext {
  bool bound[6] = {};
  int64_t index[6] = {};
  int64_t extent[6] = {};
  Team* team = nullptr;
  int tid = 0;
};

struct Team {
  struct Slot {
    Value value;
    uint64_t gen = ~uint64_t{0};
  };
  struct Warp {
    int alive = 0;
    int waiting = 0;
    uint64_t gen = 0;
    Slot slots[2][kWarpSize];
  };
  struct Thread {
    ThreadState state = ThreadState::kNew;
    ucontext_t context;
    LaunchContext launch;
    Arena arena;
  };

  int n = 0;
  uint64_t serial = 0;
  bool aborted = false;
  std::optional<Diagnostic> error;
  std::vector<Thread> threads;
  int alive = 0;
  int block_waiting = 0;
  uint32_t phase = 1;  // barrier generation: shared-memory accesses of one phase may race
  const void* block_site = nullptr;
  Span block_span;
  std::vector<Warp> warps;
  std::unordered_map<const void*, Storage*> shared;
  std::vector<std::unique_ptr<Storage>> shared_storage;
  // The scheduler's context, and what a starting thread needs.
  ucontext_t host;
  int running = -1;
  const LaunchInfo* info = nullptr;
  Frame* frame = nullptr;
  int64_t lo = 0;
};

LaunchContext& HostCtx() {
  thread_local LaunchContext ctx;
  return ctx;
}
LaunchContext*& CtxPtr() {
  thread_local LaunchContext* ctx = nullptr;
  return ctx;
}
LaunchContext& Ctx() {
  LaunchContext* p = CtxPtr();
  return p ? *p : HostCtx();
}

LaunchOverride*& Override() {
  thread_local LaunchOverride* o = nullptr;
  return o;
}

std::atomic<uint64_t> next_team_serial{1};

// Stacks are kept for the next team on this OS thread (a guard page below each).
struct StackPool {
  std::vector<void*> free;
  ~StackPool() {
    for (void* p : free) munmap(p, kStackBytes);
  }
  void* Get() {
    if (!free.empty()) {
      void* p = free.back();
      free.pop_back();
      return p;
    }
    void* p = mmap(nullptr, kStackBytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    mprotect(p, 4096, PROT_NONE);
    return p;
  }
};
StackPool& Stacks() {
  thread_local StackPool pool;
  return pool;
}

// --- Scheduling ---------------------------------------------------------------------------------

bool Runnable(ThreadState s) { return s == ThreadState::kNew || s == ThreadState::kReady; }

int NextReady(const Team& t, int from) {
  for (int k = 1; k <= t.n; ++k) {
    int j = (from + k) % t.n;
    if (Runnable(t.threads[j].state)) return j;
  }
  return -1;
}

void Abort(Team& t, Diagnostic d) {
  if (!t.error) t.error = std::move(d);
  t.aborted = true;
}

void Deadlock(Team& t) {
  int block = 0, warp = 0, done = 0;
  for (const auto& th : t.threads) {
    block += th.state == ThreadState::kBlockWait;
    warp += th.state == ThreadState::kWarpWait;
    done += th.state == ThreadState::kDone;
  }
  Abort(t, Diagnostic::Error("deadlock in a thread block: " + std::to_string(block) +
                                 " thread(s) wait at a block barrier and " + std::to_string(warp) +
                                 " at a warp synchronisation that the others (" +
                                 std::to_string(done) + " finished) never reach",
                             t.block_span));
}

void TryReleaseBlock(Team& t) {
  if (t.block_waiting == 0 || t.block_waiting != t.alive) return;
  for (auto& th : t.threads) {
    if (th.state == ThreadState::kBlockWait) th.state = ThreadState::kReady;
  }
  t.block_waiting = 0;
  t.block_site = nullptr;
  ++t.phase;
}

void TryReleaseWarp(Team& t, int w) {
  Team::Warp& warp = t.warps[w];
  if (warp.waiting == 0 || warp.waiting != warp.alive) return;
  const int end = std::min(t.n, (w + 1) * kWarpSize);
  for (int i = w * kWarpSize; i < end; ++i) {
    if (t.threads[i].state == ThreadState::kWarpWait) t.threads[i].state = ThreadState::kReady;
  }
  warp.waiting = 0;
  ++warp.gen;
}

// The running thread waits (its state says at what): back to the scheduler until resumed.
void Suspend(Team& t, int tid) {
  swapcontext(&t.threads[tid].context, &t.host);
  if (t.aborted) throw TeamAborted{};
}

thread_local Team* starting_team = nullptr;  // handed to a thread's entry (makecontext passes only ints)

void ThreadEntry() {
  Team& t = *starting_team;
  const int tid = t.running;
  {
    Frame f = *t.frame;
    const LaunchInfo& info = *t.info;
    f.vars[info.var_slot] = Value::Int(info.var_dtype, t.lo + t.threads[tid].launch.index[info.axis]);
    try {
      info.body(f);
    } catch (const TeamAborted&) {
    } catch (const InterpError& e) {
      Abort(t, e.diagnostic());
    } catch (const std::exception& e) {
      Abort(t, Diagnostic::Error(std::string("internal error in a GPU thread: ") + e.what(),
                                 info.span));
    }
  }
  t.threads[tid].state = ThreadState::kDone;
  --t.alive;
  --t.warps[tid / kWarpSize].alive;
  // A finished thread no longer takes part in barriers (as on Volta and later GPUs).
  TryReleaseBlock(t);
  TryReleaseWarp(t, tid / kWarpSize);
  // Returning resumes the scheduler (uc_link).
}

void WarpSync(Team& t, int tid, const Value& value, Team::Slot** slots, uint64_t* gen) {
  if (t.aborted) throw TeamAborted{};
  const int w = tid / kWarpSize;
  Team::Warp& warp = t.warps[w];
  const int parity = static_cast<int>(warp.gen & 1);
  *gen = warp.gen;
  warp.slots[parity][tid % kWarpSize] = {value, warp.gen};
  t.threads[tid].state = ThreadState::kWarpWait;
  ++warp.waiting;
  TryReleaseWarp(t, w);
  if (t.threads[tid].state != ThreadState::kReady) Suspend(t, tid);
  // This generation's slots stay untouched until every lane has read them: a lane can only
  // write the other parity before the next release, which needs this lane too.
  *slots = warp.slots[parity];
}

int64_t EvalExtent(const ExprFn& extent, Frame& frame, int axis, const Span& span) {
  const int64_t n = extent(frame).AsInt();
  if (LaunchOverride* o = Override(); o && o->given[axis] && o->extent[axis] != n) {
    Fail(std::string("the kernel is launched with ") + kAxisTags[axis] + " = " +
             std::to_string(o->extent[axis]) + ", but its body launches " +
             std::to_string(n),
         span);
  }
  if (n < 0) Fail(std::string(kAxisTags[axis]) + " launched with a negative extent", span);
  return n;
}

// Binds the thread axes of `ctx` for linear thread id `tid` (x fastest).
void BindThread(LaunchContext& ctx, const bool launched[6], const int64_t ext[6], int64_t tid) {
  const int64_t x = tid % ext[3], y = (tid / ext[3]) % ext[4], z = tid / (ext[3] * ext[4]);
  const int64_t idx[3] = {x, y, z};
  for (int a = 3; a < 6; ++a) {
    ctx.bound[a] = launched[a];
    ctx.index[a] = idx[a - 3];
    ctx.extent[a] = ext[a];
  }
}

Flow RunTeam(const LaunchInfo& info, Frame& frame, const bool launched[6], const int64_t ext[6],
             int64_t total, int64_t lo) {
  Team team;
  team.n = static_cast<int>(total);
  team.serial = next_team_serial++;
  team.alive = team.n;
  team.threads.resize(total);
  team.warps.resize((total + kWarpSize - 1) / kWarpSize);
  for (size_t w = 0; w < team.warps.size(); ++w) {
    team.warps[w].alive = std::min<int>(kWarpSize, team.n - static_cast<int>(w) * kWarpSize);
  }
  team.info = &info;
  team.frame = &frame;
  team.lo = lo;
  const LaunchContext base = Ctx();
  std::vector<void*> stacks;
  for (int tid = 0; tid < team.n; ++tid) {
    Team::Thread& th = team.threads[tid];
    th.launch = base;
    th.launch.team = &team;
    th.launch.tid = tid;
    BindThread(th.launch, launched, ext, tid);
  }
  LaunchContext* saved_ctx = CtxPtr();
  Arena* saved_arena = Machine::ThreadArena();
  Team* saved_starting = starting_team;
  int last = team.n - 1;
  // Runs `tid` until it suspends or finishes.
  auto resume = [&](int tid) {
    Team::Thread& th = team.threads[tid];
    team.running = tid;
    CtxPtr() = &th.launch;
    Machine::ThreadArena() = &th.arena;
    if (th.state == ThreadState::kNew) {
      void* stack = Stacks().Get();
      stacks.push_back(stack);
      getcontext(&th.context);
      th.context.uc_stack.ss_sp = stack;
      th.context.uc_stack.ss_size = kStackBytes;
      th.context.uc_link = &team.host;
      makecontext(&th.context, ThreadEntry, 0);
      th.state = ThreadState::kReady;
      starting_team = &team;
    }
    swapcontext(&team.host, &th.context);
    CtxPtr() = saved_ctx;
    Machine::ThreadArena() = saved_arena;
    starting_team = saved_starting;
    last = tid;
  };
  while (!team.aborted) {
    int next = NextReady(team, last);
    if (next < 0) {
      if (team.alive > 0) Deadlock(team);
      break;
    }
    resume(next);
  }
  if (team.aborted) {
    // Unwind every suspended thread (each throws TeamAborted at its sync point) so that the
    // objects on its stack are destroyed.
    for (int tid = 0; tid < team.n; ++tid) {
      ThreadState s = team.threads[tid].state;
      if (s == ThreadState::kBlockWait || s == ThreadState::kWarpWait || s == ThreadState::kReady) {
        resume(tid);
      }
    }
  }
  for (void* s : stacks) Stacks().free.push_back(s);
  if (team.error) throw InterpError(*team.error);
  return Flow::kNormal;
}

}  // namespace

int LaunchAxisOf(const std::string& tag) {
  for (int a = 0; a < 6; ++a) {
    if (tag == kAxisTags[a]) return a;
  }
  return -1;
}

LaunchScan ScanLaunchBody(const Stmt& body) {
  LaunchScan scan;
  auto add_axis = [&](const std::string& tag, const PrimExpr& extent) {
    int axis = LaunchAxisOf(tag);
    if (!IsThreadAxis(axis)) return;
    for (const auto& [a, e] : scan.thread_axes) {
      if (a == axis) return;
    }
    scan.thread_axes.emplace_back(axis, extent);
  };
  auto shared = [](const Buffer& b) { return b.defined() && b->scope().rfind("shared", 0) == 0; };
  PostOrderVisit(body, [&](const Object* node) {
    if (auto* attr = dynamic_cast<const AttrStmtNode*>(node)) {
      auto* iv = attr->node.as<IterVarNode>();
      if (iv && attr->attr_key == "thread_extent") add_axis(iv->thread_tag, attr->value);
    } else if (auto* loop = dynamic_cast<const ForNode*>(node)) {
      if (loop->kind == ForKind::kThreadBinding && loop->thread_binding.defined()) {
        add_axis(loop->thread_binding->thread_tag, loop->extent);
      }
    } else if (auto* call = dynamic_cast<const CallNode*>(node)) {
      if (auto* op = call->op.as<ir::OpNode>()) {
        const std::string& n = op->name;
        if (n == "tirx.tvm_storage_sync" || n.rfind("tirx.tvm_warp_", 0) == 0) scan.needs_team = true;
      }
    } else if (auto* load = dynamic_cast<const BufferLoadNode*>(node)) {
      scan.needs_team |= shared(load->buffer);
    } else if (auto* store = dynamic_cast<const BufferStoreNode*>(node)) {
      scan.needs_team |= shared(store->buffer);
    } else if (auto* alloc = dynamic_cast<const AllocBufferNode*>(node)) {
      scan.needs_team |= shared(alloc->buffer);
    } else if (auto* block = dynamic_cast<const SBlockNode*>(node)) {
      for (const auto& b : block->alloc_buffers) scan.needs_team |= shared(b);
    }
  });
  return scan;
}

Flow RunLaunch(Machine* machine, const LaunchInfo& info, Frame& frame) {
  LaunchContext& ctx = Ctx();
  const int axis = info.axis;
  const int64_t lo = info.min ? info.min(frame).AsInt() : 0;
  if (ctx.bound[axis]) {
    // The same hardware axis launched again inside its own region (a second loop bound to
    // threadIdx.x, say): the same thread, so the variable takes the thread's index.
    const int64_t n = info.extent(frame).AsInt();
    if (n != ctx.extent[axis]) {
      Fail(info.tag + " is launched with extent " + std::to_string(n) + " inside a launch of " +
               info.tag + " with extent " + std::to_string(ctx.extent[axis]) +
               "; a thread axis has one extent per kernel",
           info.span);
    }
    frame.vars[info.var_slot] = Value::Int(info.var_dtype, lo + ctx.index[axis]);
    return info.body(frame);
  }
  if (!IsThreadAxis(axis)) {
    if (ctx.team) Fail(info.tag + " is launched inside the threads of a block", info.span);
    const int64_t n = EvalExtent(info.extent, frame, axis, info.span);
    struct Unbind {
      LaunchContext& ctx;
      int axis;
      ~Unbind() { ctx.bound[axis] = false; }
    } unbind{ctx, axis};
    ctx.bound[axis] = true;
    ctx.extent[axis] = n;
    Flow flow = Flow::kNormal;
    for (int64_t i = 0; i < n; ++i) {
      machine->Tick(info.span);
      ctx.index[axis] = i;
      frame.vars[info.var_slot] = Value::Int(info.var_dtype, lo + i);
      flow = info.body(frame);
      if (flow == Flow::kReturn) break;
    }
    frame.vars[info.var_slot] = Value();
    return flow == Flow::kReturn ? flow : Flow::kNormal;
  }
  if (ctx.team) {
    Fail(info.tag + " is launched inside a thread block whose launch did not include it",
         info.span);
  }
  // A block's threads: every threadIdx axis of the region is forked here at once.
  bool launched[6] = {};
  int64_t ext[6] = {1, 1, 1, 1, 1, 1};
  launched[axis] = true;
  ext[axis] = EvalExtent(info.extent, frame, axis, info.span);
  for (const auto& [a, extent] : info.inner_thread_axes) {
    if (launched[a]) continue;
    launched[a] = true;
    ext[a] = EvalExtent(extent, frame, a, info.span);
  }
  const int64_t total = ext[3] * ext[4] * ext[5];
  if (total > kMaxThreadsPerBlock) {
    Fail("a thread block of " + std::to_string(total) + " threads (" + std::to_string(ext[3]) +
             " x " + std::to_string(ext[4]) + " x " + std::to_string(ext[5]) +
             "); a GPU allows at most 1024",
         info.span);
  }
  if (total == 0) return Flow::kNormal;
  struct Restore {
    LaunchContext& ctx;
    LaunchContext saved;
    ~Restore() { ctx = saved; }
  } restore{ctx, ctx};
  if (info.needs_team) return RunTeam(info, frame, launched, ext, total, lo);
  // Without synchronisation or shared memory, threads one after another compute exactly what
  // a team would (a team's thread only hands the baton on at a sync point).
  for (int64_t tid = 0; tid < total; ++tid) {
    machine->Tick(info.span);
    BindThread(ctx, launched, ext, tid);
    frame.vars[info.var_slot] = Value::Int(info.var_dtype, lo + ctx.index[axis]);
    info.body(frame);
  }
  frame.vars[info.var_slot] = Value();
  return Flow::kNormal;
}

void StorageSync(const std::string& scope, const void* site, const Span& span) {
  LaunchContext& ctx = Ctx();
  if (!ctx.team) return;
  Team& t = *ctx.team;
  if (scope == "warp") {
    Team::Slot* slots = nullptr;
    uint64_t gen = 0;
    WarpSync(t, ctx.tid, Value(), &slots, &gen);
    return;
  }
  if (scope != "shared" && scope != "global" && scope != "shared.dyn") {
    Fail("T.tvm_storage_sync with unknown scope \"" + scope + "\"", span);
  }
  if (t.aborted) throw TeamAborted{};
  if (t.block_waiting == 0) {
    t.block_site = site;
    t.block_span = span;
  } else if (t.block_site != site) {
    Diagnostic d = Diagnostic::Error(
        "the threads of a block wait at different barriers (undefined on a GPU): thread " +
            std::to_string(ctx.tid) + " is here while others wait elsewhere",
        span);
    d.notes.push_back({"the other barrier", t.block_span});
    Abort(t, std::move(d));
    throw TeamAborted{};
  }
  t.threads[ctx.tid].state = ThreadState::kBlockWait;
  ++t.block_waiting;
  TryReleaseBlock(t);
  if (t.threads[ctx.tid].state != ThreadState::kReady) Suspend(t, ctx.tid);
}

Value WarpShuffle(ShuffleKind kind, const Value& value, int64_t lane_or_delta, int64_t width,
                  const Span& span) {
  LaunchContext& ctx = Ctx();
  if (width <= 0 || width > kWarpSize || (width & (width - 1)) != 0) {
    Fail("warp shuffle width " + std::to_string(width) + " is not a power of two up to 32", span);
  }
  if (!ctx.team) Fail("a warp shuffle outside the threads of a block (no threadIdx launch)", span);
  Team::Slot* slots = nullptr;
  uint64_t gen = 0;
  WarpSync(*ctx.team, ctx.tid, value, &slots, &gen);
  const int64_t lane = ctx.tid % kWarpSize;
  const int64_t seg = lane / width * width, in = lane - seg;
  int64_t src = 0;
  switch (kind) {
    case ShuffleKind::kIndex: src = ((lane_or_delta % width) + width) % width; break;
    case ShuffleKind::kUp: src = in - lane_or_delta; break;
    case ShuffleKind::kDown: src = in + lane_or_delta; break;
  }
  if (src < 0 || src >= width || seg + src >= kWarpSize) return value;
  const Team::Slot& slot = slots[seg + src];
  // A lane that did not take part (finished, or outside the block) has no value to give; the
  // hardware's result is undefined, the thread's own value stands in.
  if (slot.gen != gen) return value;
  return slot.value;
}

int64_t WarpActiveMask() {
  LaunchContext& ctx = Ctx();
  if (!ctx.team) return 1;
  Team& t = *ctx.team;
  const int w = ctx.tid / kWarpSize;
  int64_t mask = 0;
  for (int i = 0; i < kWarpSize && w * kWarpSize + i < t.n; ++i) {
    if (t.threads[w * kWarpSize + i].state != ThreadState::kDone) mask |= int64_t{1} << i;
  }
  return mask;
}

void CheckSharedAccess(Storage* storage, int64_t byte, int64_t n, bool write, const Span& span) {
  LaunchContext& ctx = Ctx();
  if (!ctx.team) return;
  Team& t = *ctx.team;
  auto& entries = storage->shadow->bytes;
  if (byte < 0 || byte + n > static_cast<int64_t>(entries.size())) return;
  const int32_t tid = ctx.tid;
  auto race = [&](int64_t b, const char* other_verb, int32_t other) {
    std::string who = other >= 0 ? "thread " + std::to_string(other) : "other threads";
    Fail("data race on shared memory '" + storage->name + "' (byte " + std::to_string(b) +
             "): thread " + std::to_string(tid) + (write ? " writes" : " reads") +
             " it after " + who + " " + other_verb +
             " it with no barrier in between; a T.tvm_storage_sync(\"shared\") is missing",
         span);
  };
  for (int64_t b = byte; b < byte + n; ++b) {
    RaceShadow::Entry& e = entries[b];
    if (e.team != t.serial) e = RaceShadow::Entry{t.serial};
    const bool written_now = e.writer >= 0 && e.writer != tid && e.write_phase == t.phase;
    if (write) {
      if (written_now) race(b, "wrote", e.writer);
      if (e.reader != -1 && e.reader != tid && e.read_phase == t.phase) race(b, "read", e.reader);
      e.writer = tid;
      e.write_phase = t.phase;
    } else {
      if (written_now) race(b, "wrote", e.writer);
      if (e.reader == -1 || e.read_phase != t.phase) {
        e.reader = tid;
        e.read_phase = t.phase;
      } else if (e.reader != tid) {
        e.reader = -2;
      }
    }
  }
}

LaunchOverride* SetLaunchOverride(LaunchOverride* override_) {
  LaunchOverride* old = Override();
  Override() = override_;
  return old;
}

Storage* TeamSharedStorage(const void* key, const std::string& name, int64_t bytes,
                           const Span& span) {
  LaunchContext& ctx = Ctx();
  if (!ctx.team) return nullptr;
  Team& t = *ctx.team;
  if (auto it = t.shared.find(key); it != t.shared.end()) {
    if (it->second->bytes != bytes) {
      Fail("shared buffer " + name + " is allocated with " + std::to_string(bytes) +
               " bytes here but " + std::to_string(it->second->bytes) + " by another thread",
           span);
    }
    return it->second;
  }
  auto s = std::make_unique<Storage>();
  s->owned = std::make_unique<uint8_t[]>(static_cast<size_t>(bytes > 0 ? bytes : 1));
  s->data = s->owned.get();
  s->bytes = bytes;
  s->name = name;
  s->shadow = std::make_shared<RaceShadow>();
  s->shadow->bytes.resize(static_cast<size_t>(bytes));
  Storage* p = s.get();
  t.shared_storage.push_back(std::move(s));
  t.shared[key] = p;
  return p;
}

bool InTeam() { return Ctx().team != nullptr; }

}  // namespace wb::tir::interp
