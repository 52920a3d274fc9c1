// Running a piece of work in a forked child process, so that whatever it does (a user's kernel
// that writes out of bounds, divides by zero, never returns) cannot take the calling process
// down: the GUI keeps the user's unsaved text, batch mode reports the crash and exits cleanly,
// the manifest runner records a crashed case and goes on with the others.
//
// The child runs a callable that returns a payload (any bytes: the callers send JSON) and may
// send progress messages on the way; both travel through a pipe as length-prefixed frames. The
// child's stderr goes through a second pipe into the result. The parent pumps the pipes, checks
// its cancellation callback and the timeout between polls, kills the child (SIGKILL) on either,
// and reports exactly how the child ended (ChildEnd). Several children can run at once (each
// one a ChildProcess; PumpAll waits on all their pipes together).
//
// The child is a fork of a process that may have other threads (the GUI, a test runner): it
// runs only the callable and leaves with _exit, so no atexit handler or static destructor of
// the parent runs twice. The global thread pool resets itself in a child (pthread_atfork), so
// parallel kernels work there. A CUDA context does not survive a fork: GPU work stays in-process.
//
// Every child has limits by default, so that a kernel that never returns or allocates without
// bound is a clear failure (kTimedOut, kOutOfMemory) and not a frozen machine: a timeout, and a
// cap on the memory it may map beyond what it inherited (RLIMIT_AS, counted from the parent's
// size at the fork, so a large parent such as the GUI is not penalised).
#pragma once

#include <poll.h>
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace wb {

// How a child ended.
enum class ChildEnd {
  kFinished,     // the callable returned: `payload` holds what it returned
  kThrew,        // the callable threw: `message` holds what()
  kCrashed,      // killed by a signal it raised (SIGSEGV, SIGFPE, ...): `signal`
  kExited,       // exited by itself without a result (exit(), or _exit with a code)
  kCancelled,    // the parent's cancel check said so and the child was killed
  kTimedOut,     // ran past the timeout and was killed
  kOutOfMemory,  // an allocation failed (std::bad_alloc reached the top): `message` gives the limit
  kCannotStart,  // no pipe or no fork: `message` says why
};
const char* ChildEndName(ChildEnd end);

// "SIGSEGV (invalid memory access, e.g. an out-of-bounds index)": the signal's name and what a
// kernel does to raise it, for a user who sees a crash report.
std::string SignalDescription(int signal);

struct ChildResult {
  ChildEnd end = ChildEnd::kCannotStart;
  std::string payload;       // kFinished
  std::string message;       // kThrew, kCannotStart; a one-line account for every other end
  int signal = 0;            // kCrashed
  int exit_code = 0;         // kExited
  std::string stderr_text;   // what the child wrote to stderr (the last 64 KiB of it)
  double seconds = 0;        // from the fork to the end
  bool finished() const { return end == ChildEnd::kFinished; }
};

// The child's end of the progress channel, handed to the callable.
class ChildChannel {
 public:
  explicit ChildChannel(int fd) : fd_(fd) {}
  // Sends one message; the parent's on_progress sees it whole and in order.
  void Progress(std::string_view message);

 private:
  int fd_;
};

using ChildBody = std::function<std::string(ChildChannel& channel)>;

// The default timeout of a child: long enough for any kernel the workbench profiles, short
// enough that one that never returns ends with a message.
inline constexpr double kDefaultChildTimeoutS = 600;
// The default memory limit of a child: half the machine's physical memory (at least 1 GiB), so
// a runaway allocation fails before the machine swaps or its out-of-memory killer picks a
// victim (possibly the GUI holding the user's text).
size_t DefaultChildMemoryLimit();

struct ChildOptions {
  // Polled by the parent between reads: true kills the child (kCancelled).
  std::function<bool()> cancelled;
  // Seconds from the start; 0: no limit.
  double timeout_s = kDefaultChildTimeoutS;
  // Bytes the child may map beyond what it inherited at the fork (its address space, so
  // reserved but untouched memory counts too); 0: no limit. Past it allocations fail: a
  // std::bad_alloc that reaches the top ends the child as kOutOfMemory. Under AddressSanitizer
  // a failed allocation aborts instead (ASan's allocator reports it: kCrashed, SIGABRT).
  size_t memory_limit_bytes = DefaultChildMemoryLimit();
  // Called on the parent's thread, in order, for every message the child sent.
  std::function<void(const std::string& message)> on_progress;
  // Send the child's stderr to the result instead of the parent's stderr.
  bool capture_stderr = true;
};

class ChildProcess {
 public:
  // Forks and starts `body` in the child. When that is impossible, done() is immediately true
  // with kCannotStart.
  ChildProcess(ChildBody body, ChildOptions options = {});
  // A child still running is killed and reaped: no zombie, no orphan.
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Reads what the child has sent (waiting up to timeout_ms for something to arrive), then
  // checks cancel and timeout. True once the child has ended: result() is then final.
  bool Pump(int timeout_ms);
  // Pumps until the child ends.
  const ChildResult& Wait();
  // Kills the child now (a no-op once it ended): the result says kCancelled.
  void Cancel();

  bool done() const { return done_; }
  pid_t pid() const { return pid_; }
  const ChildResult& result() const { return result_; }

  // Waits up to timeout_ms for any of `children` to have something to read, then pumps each
  // one that is still running; returns how many have ended (all of them counted).
  static size_t PumpAll(std::span<ChildProcess* const> children, int timeout_ms);

 private:
  void Start(ChildBody body);
  void ReadAvailable();
  void ParseFrames();
  void Kill(ChildEnd why, std::string message);
  void Finish(int status);
  void CloseFds();
  // Adds this child's descriptors to a poll set; returns how long that poll may wait.
  int AddPollFds(std::vector<pollfd>* fds, int timeout_ms) const;

  ChildOptions options_;
  pid_t pid_ = -1;
  int message_fd_ = -1;
  int stderr_fd_ = -1;
  int process_fd_ = -1;  // a pidfd: readable once the child has ended
  bool done_ = false;
  std::chrono::steady_clock::time_point start_;
  std::string frames_;  // bytes read, not yet parsed into whole frames
  std::optional<std::string> payload_;
  std::optional<std::string> thrown_;
  std::optional<std::string> out_of_memory_;
  ChildResult result_;
};

// Runs `body` in a child and waits for it: the one-shot form of ChildProcess.
ChildResult RunInChild(ChildBody body, ChildOptions options = {});

}  // namespace wb
