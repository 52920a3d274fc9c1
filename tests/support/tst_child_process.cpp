// ChildProcess: work in a forked child whose crash, throw, hang or exit the parent survives and
// reports exactly; progress and a large payload through the pipe; cancel and timeout; the
// memory limit (an allocation without bound ends as out of memory, counted from the parent's
// size) and the limits every child has by default; several children at once; the global thread
// pool usable in a child after the parent started it.
#include <QTest>

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "runtime/thread_pool.h"
#include "support/child_process.h"

using wb::ChildChannel;
using wb::ChildEnd;
using wb::ChildOptions;
using wb::ChildProcess;
using wb::ChildResult;
using wb::RunInChild;

namespace {

// Safety net for the tests whose child could otherwise block forever if the code under test
// were broken: a failure instead of a hung suite. Not a timed assertion.
ChildOptions WithSafetyTimeout() {
  ChildOptions options;
  options.timeout_s = 120;
  return options;
}

[[noreturn]] void BusError() {
  char path[] = "/tmp/wb_child_bus_XXXXXX";
  int fd = mkstemp(path);
  unlink(path);
  // A mapping past the end of an empty file: touching it is a bus error, not a segfault.
  auto* p = static_cast<volatile char*>(mmap(nullptr, 4096, PROT_READ, MAP_SHARED, fd, 0));
  char c = p[0];
  (void)c;
  std::abort();
}

// A real integer division by zero. UBSan would report the division itself and exit before the
// processor raises SIGFPE, so this one function is left uninstrumented.
__attribute__((no_sanitize("undefined"))) int DivideByZero() {
  volatile int zero = 0;
  volatile int x = 7 / zero;
  return x;
}

// Heap memory that fails as the kernels' buffers do (runtime::NDArray, the workspace): null
// from the allocator becomes std::bad_alloc. Under AddressSanitizer (allocator_may_return_null=1
// in the sanitizer presets) malloc returns null past the limit too, where a failing operator new
// would end the process inside ASan instead of throwing.
std::unique_ptr<char, decltype(&std::free)> AllocateOrThrow(size_t bytes) {
  void* p = std::malloc(bytes);
  if (!p) throw std::bad_alloc();
  return {static_cast<char*>(p), &std::free};
}

}  // namespace

class TestChildProcess : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void payloadAndProgressRoundTrip() {
    std::string big(3 * 1024 * 1024 + 17, '\0');
    for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 131 + 7);
    std::vector<std::string> progress;
    ChildOptions options = WithSafetyTimeout();
    options.on_progress = [&](const std::string& m) { progress.push_back(m); };
    ChildResult r = RunInChild(
        [&](ChildChannel& channel) {
          channel.Progress("one");
          channel.Progress(std::string(200000, 'x'));
          channel.Progress("three");
          return big;
        },
        options);
    QCOMPARE(r.end, ChildEnd::kFinished);
    QVERIFY(r.payload == big);  // QCOMPARE would print 3 MiB on failure
    QCOMPARE(progress.size(), size_t(3));
    QCOMPARE(progress[0], std::string("one"));
    QCOMPARE(progress[1].size(), size_t(200000));
    QCOMPARE(progress[2], std::string("three"));
  }

  void emptyPayloadIsStillAResult() {
    ChildResult r = RunInChild([](ChildChannel&) { return std::string(); });
    QCOMPARE(r.end, ChildEnd::kFinished);
    QVERIFY(r.payload.empty());
  }

  void eachCrashIsReportedWithItsSignal_data() {
    QTest::addColumn<int>("kind");
    QTest::addColumn<int>("sig");
    QTest::addColumn<QString>("words");
    QTest::newRow("segv") << 0 << SIGSEGV << "SIGSEGV (invalid memory access";
    QTest::newRow("fpe") << 1 << SIGFPE << "SIGFPE (arithmetic error, e.g. integer division by zero)";
    QTest::newRow("bus") << 2 << SIGBUS << "SIGBUS (bus error";
    QTest::newRow("ill") << 3 << SIGILL << "SIGILL (illegal instruction";
    QTest::newRow("abrt") << 4 << SIGABRT << "SIGABRT (aborted";
  }
  void eachCrashIsReportedWithItsSignal() {
    QFETCH(int, kind);
    QFETCH(int, sig);
    QFETCH(QString, words);
    // The test runner's own crash handlers must not turn the child's crash into something else.
    ChildResult r = RunInChild([kind](ChildChannel&) -> std::string {
      switch (kind) {
        case 0: *static_cast<volatile int*>(nullptr) = 1; break;
        case 1: (void)DivideByZero(); break;
        case 2: BusError();
        case 3: __builtin_trap();
        case 4: std::abort();
      }
      return "survived";
    });
    QCOMPARE(r.end, ChildEnd::kCrashed);
    QCOMPARE(r.signal, sig);
    QVERIFY2(QString::fromStdString(r.message).startsWith(words), r.message.c_str());
  }

  void aThrowIsReportedWithItsMessage() {
    ChildResult r = RunInChild([](ChildChannel&) -> std::string {
      throw std::runtime_error("no kernel named 'mian'");
    });
    QCOMPARE(r.end, ChildEnd::kThrew);
    QCOMPARE(r.message, std::string("no kernel named 'mian'"));
  }

  void anExitWithoutResultIsReportedWithItsCode() {
    ChildResult r = RunInChild([](ChildChannel&) -> std::string { _exit(9); });
    QCOMPARE(r.end, ChildEnd::kExited);
    QCOMPARE(r.exit_code, 9);
  }

  void stderrIsCaptured() {
    ChildResult r = RunInChild([](ChildChannel&) {
      std::fprintf(stderr, "kernel says hello\n");
      return std::string("ok");
    });
    QCOMPARE(r.end, ChildEnd::kFinished);
    QCOMPARE(r.stderr_text, std::string("kernel says hello\n"));
    // Also what it wrote just before it crashed.
    r = RunInChild([](ChildChannel&) -> std::string {
      std::fprintf(stderr, "about to fail\n");
      std::abort();
    });
    QCOMPARE(r.end, ChildEnd::kCrashed);
    QVERIFY(r.stderr_text.find("about to fail") != std::string::npos);
  }

  void cancelKillsAChildBlockedForever() {
    std::atomic<bool> cancel{false};
    ChildOptions options = WithSafetyTimeout();
    options.cancelled = [&] { return cancel.load(); };
    // Cancel once the child says it is about to block: the cancel lands while it blocks.
    options.on_progress = [&](const std::string&) { cancel = true; };
    ChildResult r = RunInChild(
        [](ChildChannel& channel) -> std::string {
          channel.Progress("blocking");
          for (;;) pause();
        },
        options);
    QCOMPARE(r.end, ChildEnd::kCancelled);
  }

  void cancelKillsAChildInTheMiddleOfALongComputation() {
    bool spinning = false;
    ChildOptions options = WithSafetyTimeout();
    options.on_progress = [&](const std::string&) { spinning = true; };
    ChildProcess child(
        [](ChildChannel& channel) -> std::string {
          channel.Progress("spinning");
          for (unsigned long i = 0;; ++i) asm volatile("" : : "r"(i));
        },
        options);
    while (!child.Pump(20)) {
      if (spinning) child.Cancel();
    }
    QCOMPARE(child.result().end, ChildEnd::kCancelled);
  }

  void timeoutKillsTheChild() {
    ChildOptions options;
    options.timeout_s = 0.2;
    ChildResult r = RunInChild([](ChildChannel&) -> std::string {
      for (;;) pause();
    }, options);
    QCOMPARE(r.end, ChildEnd::kTimedOut);
    QVERIFY(r.message.find("did not finish within 0.2 s") != std::string::npos);
  }

  void anAllocationWithoutBoundEndsAsOutOfMemory() {
    constexpr size_t kChunk = size_t{32} << 20;
    ChildOptions options = WithSafetyTimeout();
    options.memory_limit_bytes = size_t{256} << 20;
    int chunks = 0;
    options.on_progress = [&](const std::string&) { ++chunks; };
    ChildResult r = RunInChild(
        [&](ChildChannel& channel) -> std::string {
          std::vector<std::unique_ptr<char, decltype(&std::free)>> kept;
          for (;;) {
            kept.push_back(AllocateOrThrow(kChunk));
            kept.back().get()[0] = 1;
            channel.Progress("+");
          }
        },
        options);
    QCOMPARE(r.end, ChildEnd::kOutOfMemory);
    QVERIFY2(r.message.find("out of memory") != std::string::npos, r.message.c_str());
    QVERIFY2(r.message.find("256 MiB") != std::string::npos, r.message.c_str());
    // The limit stopped it, not the machine: near the 256 MiB it was allowed (a little more when
    // the child unmapped some of what it inherited), far from what the machine has.
    QVERIFY2(chunks < 16, qPrintable(QString::number(chunks)));
  }

  void theMemoryLimitCountsFromTheParentsSize() {
    // A parent that has 1 GiB mapped (reserved, untouched: it costs nothing) ...
    constexpr size_t kParent = size_t{1} << 30;
    void* reserved = mmap(nullptr, kParent, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    QVERIFY(reserved != MAP_FAILED);
    ChildOptions options = WithSafetyTimeout();
    options.memory_limit_bytes = size_t{256} << 20;
    // ... still gives its child 256 MiB of its own.
    ChildResult r = RunInChild(
        [](ChildChannel&) {
          std::unique_ptr<char[]> block(new char[size_t{128} << 20]);
          block[0] = 1;
          return std::string("allocated");
        },
        options);
    munmap(reserved, kParent);
    QCOMPARE(r.end, ChildEnd::kFinished);
    QCOMPARE(r.payload, std::string("allocated"));
  }

  void aBadAllocWithoutALimitIsStillOutOfMemory() {
    ChildOptions options = WithSafetyTimeout();
    options.memory_limit_bytes = 0;
    ChildResult r = RunInChild([](ChildChannel&) -> std::string { throw std::bad_alloc(); }, options);
    QCOMPARE(r.end, ChildEnd::kOutOfMemory);
    QVERIFY2(r.message.rfind("out of memory: an allocation failed", 0) == 0, r.message.c_str());
    QVERIFY(r.message.find("limit") == std::string::npos);
    QCOMPARE(std::string(wb::ChildEndName(r.end)), std::string("out of memory"));
  }

  void everyChildHasLimitsByDefault() {
    ChildOptions options;
    QCOMPARE(options.timeout_s, wb::kDefaultChildTimeoutS);
    QVERIFY(options.timeout_s > 0);
    QCOMPARE(options.memory_limit_bytes, wb::DefaultChildMemoryLimit());
    QVERIFY(options.memory_limit_bytes >= size_t{1} << 30);
    // The limit is really in place in a child started with the defaults.
    ChildResult r = RunInChild([](ChildChannel&) {
      rlimit limit{};
      getrlimit(RLIMIT_AS, &limit);
      return std::string(limit.rlim_cur == RLIM_INFINITY ? "none" : "limited");
    });
    QCOMPARE(r.end, ChildEnd::kFinished);
    QCOMPARE(r.payload, std::string("limited"));
  }

  void severalChildrenAtOnce() {
    std::vector<std::unique_ptr<ChildProcess>> children;
    for (int i = 0; i < 6; ++i) {
      children.push_back(std::make_unique<ChildProcess>(
          [i](ChildChannel& channel) -> std::string {
            channel.Progress("child " + std::to_string(i));
            if (i == 3) *static_cast<volatile int*>(nullptr) = 1;
            return std::string(100000 * (i + 1), static_cast<char>('a' + i));
          },
          WithSafetyTimeout()));
    }
    std::vector<ChildProcess*> all;
    for (auto& c : children) all.push_back(c.get());
    while (ChildProcess::PumpAll(all, 50) < all.size()) {
    }
    for (int i = 0; i < 6; ++i) {
      const ChildResult& r = children[i]->result();
      if (i == 3) {
        QCOMPARE(r.end, ChildEnd::kCrashed);
        QCOMPARE(r.signal, SIGSEGV);
        continue;
      }
      QCOMPARE(r.end, ChildEnd::kFinished);
      QVERIFY(r.payload == std::string(100000 * (i + 1), static_cast<char>('a' + i)));
    }
  }

  void childrenFromSeveralThreads() {
    // The GUI forks from worker threads; one child's pipes leak into another's fork.
    std::vector<ChildResult> results(4);
    std::vector<std::thread> threads;
    for (int i = 0; i < 4; ++i) {
      threads.emplace_back([i, &results] {
        results[i] = RunInChild([i](ChildChannel&) { return std::to_string(i * i); },
                                WithSafetyTimeout());
      });
    }
    for (auto& t : threads) t.join();
    for (int i = 0; i < 4; ++i) {
      QCOMPARE(results[i].end, ChildEnd::kFinished);
      QCOMPARE(results[i].payload, std::to_string(i * i));
    }
  }

  void destroyingARunningChildKillsIt() {
    pid_t pid;
    {
      ChildProcess child([](ChildChannel&) -> std::string {
        for (;;) pause();
      });
      pid = child.pid();
      QVERIFY(pid > 0);
    }
    // Reaped: the pid is no longer ours to signal.
    QCOMPARE(kill(pid, 0), -1);
  }

  void threadPoolWorksInAChildAfterTheParentStartedIt() {
    auto& pool = wb::runtime::ThreadPool::Global();
    pool.SetNumThreads(4);
    std::atomic<int> ran{0};
    QCOMPARE(pool.Launch(8, [&](int) { ++ran; return 0; }), 0);
    QCOMPARE(ran.load(), 8);
    ChildResult r = RunInChild(
        [](ChildChannel&) {
          auto& child_pool = wb::runtime::ThreadPool::Global();
          std::mutex mutex;
          std::set<std::thread::id> threads;
          int rc = child_pool.Launch(8, [&](int) {
            std::lock_guard lock(mutex);
            threads.insert(std::this_thread::get_id());
            return 0;
          });
          return std::to_string(child_pool.num_threads()) + " " + std::to_string(threads.size()) +
                 " " + std::to_string(rc);
        },
        WithSafetyTimeout());
    QCOMPARE(r.end, ChildEnd::kFinished);
    // The parent's size, and the tasks really spread over the child's own four threads.
    QCOMPARE(r.payload, std::string("4 4 0"));
    QCOMPARE(wb::runtime::ThreadPool::GlobalNumThreads(), 4);
    pool.SetNumThreads(0);
  }

  void signalDescriptions() {
    QCOMPARE(wb::SignalDescription(SIGSEGV),
             std::string("SIGSEGV (invalid memory access, e.g. an out-of-bounds index)"));
    QCOMPARE(wb::SignalDescription(SIGFPE),
             std::string("SIGFPE (arithmetic error, e.g. integer division by zero)"));
    QVERIFY(wb::SignalDescription(SIGUSR1).rfind("SIGUSR1 (", 0) == 0);
  }
};

QTEST_APPLESS_MAIN(TestChildProcess)
#include "tst_child_process.moc"
