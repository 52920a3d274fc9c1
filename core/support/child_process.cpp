#include "support/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <vector>

namespace wb {

namespace {

// Frames on the message pipe: one type byte, an 8-byte length, the bytes.
constexpr char kFrameProgress = 'P';
constexpr char kFrameResult = 'R';
constexpr char kFrameThrew = 'E';
constexpr char kFrameOutOfMemory = 'M';
constexpr size_t kFrameHeader = 1 + sizeof(uint64_t);
constexpr size_t kStderrKeep = 64 * 1024;

// The child's exit code after it reported a throw; the frame says what, the code is a fallback.
constexpr int kExitThrew = 70;

bool WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool WriteFrame(int fd, char type, std::string_view bytes) {
  char header[kFrameHeader];
  header[0] = type;
  uint64_t size = bytes.size();
  std::memcpy(header + 1, &size, sizeof(size));
  return WriteAll(fd, header, sizeof(header)) && WriteAll(fd, bytes.data(), bytes.size());
}

// The process's mapped size in bytes (the first field of /proc/self/statm, in pages); 0 when it
// cannot be read. Plain system calls: the caller is a fork of a process that may have threads.
size_t MappedBytes() {
  int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[128];
  ssize_t n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = 0;
  return std::strtoull(buf, nullptr, 10) * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

// Caps the address space at what is mapped now plus `extra` bytes (never above a hard limit
// already in place).
void LimitMemory(size_t extra) {
  rlimit limit{};
  if (extra == 0 || getrlimit(RLIMIT_AS, &limit) != 0) return;
  rlim_t cap = static_cast<rlim_t>(MappedBytes() + extra);
  if (limit.rlim_max != RLIM_INFINITY && cap > limit.rlim_max) cap = limit.rlim_max;
  limit.rlim_cur = cap;
  setrlimit(RLIMIT_AS, &limit);
}

std::string MiB(size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// What runs in the child: the crash signals get their default action back (a test runner or
// LLVM may have installed handlers that print and continue, or that re-raise elsewhere), so a
// crash ends the child with the signal the parent then names.
[[noreturn]] void ChildMain(const ChildBody& body, const ChildOptions& options, int message_fd,
                            int stderr_fd) {
  for (int sig : {SIGSEGV, SIGFPE, SIGBUS, SIGILL, SIGABRT, SIGTRAP, SIGSYS, SIGPIPE}) {
    signal(sig, SIG_DFL);
  }
  sigset_t none;
  sigemptyset(&none);
  pthread_sigmask(SIG_SETMASK, &none, nullptr);
  if (stderr_fd >= 0) {
    dup2(stderr_fd, STDERR_FILENO);
    close(stderr_fd);
  }
  LimitMemory(options.memory_limit_bytes);
  ChildChannel channel(message_fd);
  int code = 0;
  try {
    std::string payload = body(channel);
    WriteFrame(message_fd, kFrameResult, payload);
  } catch (const std::bad_alloc& e) {
    std::string what = "out of memory: an allocation failed (" + std::string(e.what()) + ")";
    if (options.memory_limit_bytes) {
      what += " past the limit of " + MiB(options.memory_limit_bytes) + " beyond the parent's size";
    }
    WriteFrame(message_fd, kFrameOutOfMemory, what);
    code = kExitThrew;
  } catch (const std::exception& e) {
    WriteFrame(message_fd, kFrameThrew, e.what());
    code = kExitThrew;
  } catch (...) {
    WriteFrame(message_fd, kFrameThrew, "an exception that is not a std::exception");
    code = kExitThrew;
  }
  std::fflush(nullptr);
  _exit(code);
}

void SetNonBlocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

// Reads what is there without blocking; false at end of file.
bool Drain(int fd, std::string* into, size_t keep_last = 0) {
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n > 0) {
      into->append(buf, static_cast<size_t>(n));
      if (keep_last && into->size() > 2 * keep_last) into->erase(0, into->size() - keep_last);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0;  // EAGAIN: open, nothing more now
  }
}

void CloseFd(int* fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

pid_t WaitFor(pid_t pid, int* status, int flags) {
  for (;;) {
    pid_t r = waitpid(pid, status, flags);
    if (r < 0 && errno == EINTR) continue;
    return r;
  }
}

}  // namespace

const char* ChildEndName(ChildEnd end) {
  switch (end) {
    case ChildEnd::kFinished: return "finished";
    case ChildEnd::kThrew: return "threw";
    case ChildEnd::kCrashed: return "crashed";
    case ChildEnd::kExited: return "exited";
    case ChildEnd::kCancelled: return "cancelled";
    case ChildEnd::kTimedOut: return "timed out";
    case ChildEnd::kOutOfMemory: return "out of memory";
    case ChildEnd::kCannotStart: return "cannot start";
  }
  return "unknown";
}

std::string SignalDescription(int sig) {
  const char* what = nullptr;
  switch (sig) {
    case SIGSEGV: what = "invalid memory access, e.g. an out-of-bounds index"; break;
    case SIGFPE: what = "arithmetic error, e.g. integer division by zero"; break;
    case SIGBUS: what = "bus error: a misaligned or unmapped memory access"; break;
    case SIGILL: what = "illegal instruction, e.g. code for a CPU feature this one lacks"; break;
    case SIGABRT: what = "aborted, e.g. a failed assertion"; break;
    case SIGKILL: what = "killed from outside, e.g. by the out-of-memory killer"; break;
    default: break;
  }
  const char* abbrev = sigabbrev_np(sig);
  std::string name = abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
  if (!what) what = strsignal(sig);
  return name + " (" + what + ")";
}

void ChildChannel::Progress(std::string_view message) { WriteFrame(fd_, kFrameProgress, message); }

ChildProcess::ChildProcess(ChildBody body, ChildOptions options) : options_(std::move(options)) {
  Start(std::move(body));
}

ChildProcess::~ChildProcess() {
  if (!done_ && pid_ > 0) {
    kill(pid_, SIGKILL);
    int status = 0;
    WaitFor(pid_, &status, 0);
  }
  CloseFds();
}

void ChildProcess::Start(ChildBody body) {
  start_ = std::chrono::steady_clock::now();
  auto cannot = [&](const char* what) {
    result_.end = ChildEnd::kCannotStart;
    result_.message = std::string("cannot start a process: ") + what + ": " + std::strerror(errno);
    done_ = true;
  };
  int message_pipe[2];
  int stderr_pipe[2] = {-1, -1};
  if (pipe2(message_pipe, O_CLOEXEC) != 0) return cannot("pipe");
  if (options_.capture_stderr && pipe2(stderr_pipe, O_CLOEXEC) != 0) {
    close(message_pipe[0]);
    close(message_pipe[1]);
    return cannot("pipe");
  }
  // A large payload then crosses in fewer turns between the two processes (best effort: the
  // system may cap pipe sizes lower).
  fcntl(message_pipe[1], F_SETPIPE_SZ, 1 << 20);
  // Whatever the parent has buffered would otherwise be written twice, once by each process.
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    int saved = errno;
    for (int fd : {message_pipe[0], message_pipe[1], stderr_pipe[0], stderr_pipe[1]}) {
      if (fd >= 0) close(fd);
    }
    errno = saved;
    return cannot("fork");
  }
  if (pid == 0) {
    close(message_pipe[0]);
    if (stderr_pipe[0] >= 0) close(stderr_pipe[0]);
    ChildMain(body, options_, message_pipe[1], stderr_pipe[1]);
  }
  close(message_pipe[1]);
  if (stderr_pipe[1] >= 0) close(stderr_pipe[1]);
  pid_ = pid;
  message_fd_ = message_pipe[0];
  stderr_fd_ = stderr_pipe[0];
  SetNonBlocking(message_fd_);
  if (stderr_fd_ >= 0) SetNonBlocking(stderr_fd_);
  // Readable when the child has ended: poll wakes then, not at its next timeout, even when the
  // pipes closed a moment before the process was gone. Without it (kernels before 5.3) Pump
  // polls the process every few milliseconds once the pipes are closed.
  process_fd_ = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
}

void ChildProcess::ReadAvailable() {
  if (message_fd_ >= 0) {
    if (!Drain(message_fd_, &frames_)) CloseFd(&message_fd_);
    ParseFrames();
  }
  if (stderr_fd_ >= 0 && !Drain(stderr_fd_, &result_.stderr_text, kStderrKeep)) {
    CloseFd(&stderr_fd_);
  }
}

void ChildProcess::ParseFrames() {
  size_t at = 0;
  while (frames_.size() - at >= kFrameHeader) {
    uint64_t size = 0;
    std::memcpy(&size, frames_.data() + at + 1, sizeof(size));
    if (frames_.size() - at - kFrameHeader < size) break;
    char type = frames_[at];
    std::string bytes = frames_.substr(at + kFrameHeader, size);
    at += kFrameHeader + size;
    if (type == kFrameProgress) {
      if (options_.on_progress) options_.on_progress(bytes);
    } else if (type == kFrameResult) {
      payload_ = std::move(bytes);
    } else if (type == kFrameThrew) {
      thrown_ = std::move(bytes);
    } else if (type == kFrameOutOfMemory) {
      out_of_memory_ = std::move(bytes);
    }
  }
  frames_.erase(0, at);
}

int ChildProcess::AddPollFds(std::vector<pollfd>* fds, int timeout_ms) const {
  for (int fd : {message_fd_, stderr_fd_, process_fd_}) {
    if (fd >= 0) fds->push_back({fd, POLLIN, 0});
  }
  bool pipes_open = message_fd_ >= 0 || stderr_fd_ >= 0;
  return pipes_open || process_fd_ >= 0 ? timeout_ms : std::min(timeout_ms, 2);
}

bool ChildProcess::Pump(int timeout_ms) {
  if (done_) return true;
  std::vector<pollfd> fds;
  int wait_ms = AddPollFds(&fds, timeout_ms);
  poll(fds.data(), fds.size(), wait_ms);
  ReadAvailable();
  // Whether it ended is asked of the process, not of the pipes: another child forked meanwhile
  // (by another thread) may hold copies of this one's write ends and keep them from closing.
  int status = 0;
  pid_t r = WaitFor(pid_, &status, WNOHANG);
  if (r == pid_) {
    ReadAvailable();  // everything it wrote is in the pipes now
    Finish(status);
    return true;
  }
  if (r < 0) {
    // Only when someone else reaped it (SIGCHLD ignored): how it ended is lost.
    ReadAvailable();
    Finish(-1);
    return true;
  }
  if (options_.cancelled && options_.cancelled()) {
    Kill(ChildEnd::kCancelled, "cancelled");
    return true;
  }
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (options_.timeout_s > 0 && elapsed > options_.timeout_s) {
    char text[96];
    std::snprintf(text, sizeof(text), "did not finish within %g s", options_.timeout_s);
    Kill(ChildEnd::kTimedOut, text);
    return true;
  }
  return false;
}

const ChildResult& ChildProcess::Wait() {
  while (!Pump(50)) {
  }
  return result_;
}

void ChildProcess::Cancel() {
  if (!done_) Kill(ChildEnd::kCancelled, "cancelled");
}

void ChildProcess::Kill(ChildEnd why, std::string message) {
  kill(pid_, SIGKILL);
  int status = 0;
  WaitFor(pid_, &status, 0);
  CloseFds();
  result_.end = why;
  result_.message = std::move(message);
  result_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  done_ = true;
}

void ChildProcess::Finish(int status) {
  CloseFds();
  result_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  done_ = true;
  if (status == -1) {
    result_.end = ChildEnd::kExited;
    result_.exit_code = -1;
    result_.message = "the process ended but its exit status was lost";
  } else if (WIFSIGNALED(status)) {
    result_.end = ChildEnd::kCrashed;
    result_.signal = WTERMSIG(status);
    result_.message = SignalDescription(result_.signal);
  } else if (payload_) {
    result_.end = ChildEnd::kFinished;
    result_.payload = std::move(*payload_);
  } else if (thrown_) {
    result_.end = ChildEnd::kThrew;
    result_.message = std::move(*thrown_);
  } else if (out_of_memory_) {
    result_.end = ChildEnd::kOutOfMemory;
    result_.message = std::move(*out_of_memory_);
  } else {
    result_.end = ChildEnd::kExited;
    result_.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result_.message = "exited with code " + std::to_string(result_.exit_code) + " without a result";
  }
  if (result_.stderr_text.size() > kStderrKeep) {
    result_.stderr_text.erase(0, result_.stderr_text.size() - kStderrKeep);
  }
}

void ChildProcess::CloseFds() {
  CloseFd(&message_fd_);
  CloseFd(&stderr_fd_);
  CloseFd(&process_fd_);
}

size_t ChildProcess::PumpAll(std::span<ChildProcess* const> children, int timeout_ms) {
  std::vector<pollfd> fds;
  int wait_ms = timeout_ms;
  for (ChildProcess* c : children) {
    if (!c->done_) wait_ms = std::min(wait_ms, c->AddPollFds(&fds, timeout_ms));
  }
  poll(fds.data(), fds.size(), wait_ms);
  size_t ended = 0;
  for (ChildProcess* c : children) ended += c->Pump(0);
  return ended;
}

size_t DefaultChildMemoryLimit() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long page = sysconf(_SC_PAGESIZE);
  size_t half = pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) / 2 : 0;
  return std::max<size_t>(half, size_t{1} << 30);
}

ChildResult RunInChild(ChildBody body, ChildOptions options) {
  ChildProcess child(std::move(body), std::move(options));
  return child.Wait();
}

}  // namespace wb
