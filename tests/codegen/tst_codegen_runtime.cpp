// The runtime pieces generated code relies on, without the compiler: the thread pool's task
// distribution, the time evaluator's TVM semantics (call counts, not timing values), packed
// functions; and Target parsing.

#include <QTest>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>

#include "codegen/target.h"
#include "runtime/c_backend_api.h"
#include "runtime/packed_func.h"
#include "runtime/thread_pool.h"
#include "runtime/time_evaluator.h"

using namespace wb;

class TstCodegenRuntime : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void threadPoolRunsEveryTaskOnce() {
    runtime::ThreadPool pool(3);
    QCOMPARE(pool.num_threads(), 3);
    for (int tasks : {1, 2, 3, 7, 32}) {
      std::mutex m;
      std::multiset<int> seen;
      std::set<std::thread::id> threads;
      int32_t rc = pool.Launch(tasks, [&](int t) {
        std::lock_guard lock(m);
        seen.insert(t);
        threads.insert(std::this_thread::get_id());
        return 0;
      });
      QCOMPARE(rc, 0);
      QCOMPARE(static_cast<int>(seen.size()), tasks);
      for (int t = 0; t < tasks; ++t) QCOMPARE(static_cast<int>(seen.count(t)), 1);
      QVERIFY(static_cast<int>(threads.size()) <= std::min(tasks, 3));
    }
    // A failing task's code comes back; a launch inside a task runs serially.
    QCOMPARE(pool.Launch(6, [&](int t) { return t == 4 ? 7 : 0; }), 7);
    std::atomic<int> inner{0};
    QCOMPARE(pool.Launch(3, [&](int) { return pool.Launch(4, [&](int) { ++inner; return 0; }); }), 0);
    QCOMPARE(inner.load(), 12);
    pool.SetNumThreads(1);
    QCOMPARE(pool.num_threads(), 1);
    QCOMPARE(pool.Launch(5, [&](int) { return 0; }), 0);
  }

  void backendParallelLaunchUsesThePool() {
    auto& pool = runtime::ThreadPool::Global();
    int saved = pool.num_threads();
    pool.SetNumThreads(4);
    struct Data {
      std::atomic<int> calls{0};
      std::atomic<int> num_task{0};
    } data;
    auto lambda = [](int32_t task, int32_t num_task, void* cdata) -> int32_t {
      auto* d = static_cast<Data*>(cdata);
      d->calls++;
      d->num_task = num_task;
      return 0;
    };
    QCOMPARE(WBBackendParallelLaunch(lambda, &data, 0), 0);
    QCOMPARE(data.calls.load(), 4);  // 0 tasks: one per pool thread
    QCOMPARE(data.num_task.load(), 4);
    // A loop of fewer iterations than threads asks for that many tasks, never more threads.
    data.calls = 0;
    QCOMPARE(WBBackendParallelLaunch(lambda, &data, 2), 0);
    QCOMPARE(data.calls.load(), 2);
    QCOMPARE(data.num_task.load(), 2);
    data.calls = 0;
    QCOMPARE(WBBackendParallelLaunch(lambda, &data, 100), 0);
    QCOMPARE(data.calls.load(), 4);
    QCOMPARE(data.num_task.load(), 4);
    // One iteration runs on the calling thread.
    struct Where {
      std::thread::id id;
    } where;
    auto record = [](int32_t, int32_t, void* cdata) -> int32_t {
      static_cast<Where*>(cdata)->id = std::this_thread::get_id();
      return 0;
    };
    QCOMPARE(WBBackendParallelLaunch(record, &where, 1), 0);
    QCOMPARE(where.id, std::this_thread::get_id());
    pool.SetNumThreads(saved);
  }

  void timeEvaluatorCountsCalls() {
    int calls = 0;
    runtime::PackedFunc f([&](const std::vector<runtime::PackedArg>& args, runtime::PackedRet*) {
      QCOMPARE(args.size(), size_t{1});
      ++calls;
    });
    runtime::TimeEvaluatorResult r = runtime::TimeEvaluate(f, {int64_t{5}}, {.number = 3, .repeat = 4});
    QCOMPARE(r.samples_s.size(), size_t{4});
    QCOMPARE(calls, 1 + 3 * 4);  // one warm-up call, then repeat x number
    QCOMPARE(r.total_calls, int64_t{13});
    QCOMPARE(r.final_number, 3);
    for (double s : r.samples_s) QVERIFY(s >= 0);
    QVERIFY(r.min_s() <= r.median_s() && r.median_s() <= r.max_s());
  }

  void timeEvaluatorGrowsNumberToMinRepeatMs() {
    int calls = 0;
    runtime::PackedFunc f([&](const std::vector<runtime::PackedArg>&, runtime::PackedRet*) {
      ++calls;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    });
    runtime::TimeEvaluatorResult r =
        runtime::TimeEvaluate(f, {}, {.number = 1, .repeat = 2, .min_repeat_ms = 20, .cooldown_interval_ms = 1});
    QCOMPARE(r.samples_s.size(), size_t{2});
    // Each call takes >= 0.2 ms, so 1 call cannot fill 20 ms: number must have grown.
    QVERIFY2(r.final_number > 1, qPrintable(QString::number(r.final_number)));
    QCOMPARE(r.total_calls, int64_t{calls});
  }

  void timeEvaluatorRejectsBadOptionsAndPropagatesErrors() {
    runtime::PackedFunc ok([](const std::vector<runtime::PackedArg>&, runtime::PackedRet*) {});
    QVERIFY_THROWS_EXCEPTION(runtime::Error, runtime::TimeEvaluate(ok, {}, {.number = 0}));
    QVERIFY_THROWS_EXCEPTION(runtime::Error, runtime::TimeEvaluate(ok, {}, {.repeat = 0}));
    runtime::PackedFunc bad([](const std::vector<runtime::PackedArg>&, runtime::PackedRet*) {
      throw runtime::Error("boom");
    });
    QVERIFY_THROWS_EXCEPTION(runtime::Error, runtime::TimeEvaluate(bad, {}, {}));
  }

  void targetParsing() {
    std::string error;
    auto host = codegen::ParseTarget("llvm", &error);
    QVERIFY2(host.has_value(), error.c_str());
    QVERIFY(!host->mcpu.empty() && host->mcpu != "native");
    QVERIFY(host->num_cores >= 1);
    QCOMPARE(codegen::Target::Host().mcpu, host->mcpu);

    auto skx = codegen::ParseTarget("llvm -mcpu=skylake-avx512", &error);
    QVERIFY2(skx.has_value(), error.c_str());
    QCOMPARE(skx->mcpu, std::string("skylake-avx512"));
    QVERIFY(skx->HasFeature("avx512f"));
    QCOMPARE(skx->MaxVectorBits(), 512);
    QCOMPARE(skx->str(), std::string("llvm -mcpu=skylake-avx512"));

    auto no512 = codegen::ParseTarget("llvm -mcpu=skylake-avx512 -mattr=-avx512f,+fma", &error);
    QVERIFY2(no512.has_value(), error.c_str());
    QVERIFY(!no512->HasFeature("avx512f"));
    QCOMPARE(no512->MaxVectorBits(), 256);
    QCOMPARE(no512->str(), std::string("llvm -mcpu=skylake-avx512 -mattr=-avx512f,+fma"));

    auto tag = codegen::ParseTarget("avx2", &error);
    QVERIFY2(tag.has_value(), error.c_str());
    QCOMPARE(tag->mcpu, std::string("haswell"));
    QCOMPARE(tag->tag, std::string("avx2"));
    QVERIFY(tag->HasFeature("avx2") && !tag->HasFeature("avx512f"));

    auto expect_error = [&](const char* text, const char* fragment) {
      std::string e;
      QVERIFY2(!codegen::ParseTarget(text, &e).has_value(), text);
      QVERIFY2(e.find(fragment) != std::string::npos, (std::string(text) + " -> " + e).c_str());
    };
    expect_error("", "empty target");
    expect_error("rocm", "unknown target kind 'rocm'");
    expect_error("llvm -mcpu=notacpu", "unknown -mcpu 'notacpu'");
    expect_error("llvm -mattr=avx2", "must start with '+' or '-'");
    expect_error("llvm -foo=1", "unknown target option -foo");
    expect_error("llvm mcpu", "not of the form -key=value");
    expect_error("llvm -opt-level=7", "-opt-level must be 0, 1, 2 or 3");
    expect_error("avx2 -mcpu=x", "takes no options");
  }
};

QTEST_APPLESS_MAIN(TstCodegenRuntime)
#include "tst_codegen_runtime.moc"
