// The `cuda` Target: defaults, options, tags ("nvidia/h200" -> sm_90 with its limits), the host
// sub-target, the architecture detector hook the CUDA runtime registers, and errors that name the
// bad option.

#include <QTest>

#include "codegen/target.h"

using namespace wb;

class TestCudaTarget : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void cleanup() { codegen::SetCudaArchDetector(nullptr); }

  void defaults() {
    std::string error;
    auto t = codegen::ParseTarget("cuda", &error);
    QVERIFY2(t.has_value(), error.c_str());
    QVERIFY(t->is_cuda());
    QCOMPARE(t->arch, std::string("sm_90"));
    QCOMPARE(t->max_threads_per_block, 1024);
    QCOMPARE(t->max_shared_memory_per_block, 49152);
    QCOMPARE(t->thread_warp_size, 32);
    QVERIFY(t->host != nullptr);
    QCOMPARE(t->host->kind, std::string("llvm"));
    QCOMPARE(t->str(), std::string("cuda -arch=sm_90 -max_threads_per_block=1024 -max_shared_memory_per_block=49152 "
                                   "-thread_warp_size=32"));
    // The canonical text parses back to the same target.
    auto again = codegen::ParseTarget(t->str(), &error);
    QVERIFY2(again.has_value(), error.c_str());
    QCOMPARE(again->str(), t->str());
  }

  void options() {
    std::string error;
    auto t = codegen::ParseTarget("cuda -arch=sm_80 -max_threads_per_block=512 -max_shared_memory_per_block=65536 "
                                  "-thread_warp_size=32 -host=avx2", &error);
    QVERIFY2(t.has_value(), error.c_str());
    QCOMPARE(t->arch, std::string("sm_80"));
    QCOMPARE(t->max_threads_per_block, 512);
    QCOMPARE(t->max_shared_memory_per_block, 65536);
    QCOMPARE(t->host->mcpu, std::string("haswell"));
    auto a = codegen::ParseTarget("cuda -arch=sm_90a", &error);
    QVERIFY2(a.has_value(), error.c_str());
    QCOMPARE(a->arch, std::string("sm_90a"));
  }

  void tags() {
    std::string error;
    auto h200 = codegen::ParseTarget("nvidia/h200", &error);
    QVERIFY2(h200.has_value(), error.c_str());
    QCOMPARE(h200->kind, std::string("cuda"));
    QCOMPARE(h200->tag, std::string("nvidia/h200"));
    QCOMPARE(h200->arch, std::string("sm_90"));
    QCOMPARE(h200->max_threads_per_block, 1024);
    QCOMPARE(h200->max_shared_memory_per_block, 49152);
    QCOMPARE(h200->thread_warp_size, 32);
    auto a100 = codegen::ParseTarget("nvidia/a100", &error);
    QVERIFY2(a100.has_value(), error.c_str());
    QCOMPARE(a100->arch, std::string("sm_80"));
    bool listed = false;
    for (const auto& [name, text] : codegen::TargetTags()) listed |= name == "nvidia/h200";
    QVERIFY(listed);
  }

  void detectorHook() {
    std::string error;
    // The runtime reports the present GPU; an explicit -arch wins; "" means no GPU: sm_90.
    codegen::SetCudaArchDetector([] { return std::string("sm_89"); });
    QCOMPARE(codegen::ParseTarget("cuda", &error)->arch, std::string("sm_89"));
    QCOMPARE(codegen::ParseTarget("cuda -arch=sm_75", &error)->arch, std::string("sm_75"));
    QCOMPARE(codegen::ParseTarget("nvidia/h200", &error)->arch, std::string("sm_90"));
    codegen::SetCudaArchDetector([] { return std::string(); });
    QCOMPARE(codegen::ParseTarget("cuda", &error)->arch, std::string("sm_90"));
  }

  void errorsNameTheOption() {
    auto expect_error = [&](const char* text, const char* fragment) {
      std::string e;
      QVERIFY2(!codegen::ParseTarget(text, &e).has_value(), text);
      QVERIFY2(e.find(fragment) != std::string::npos, (std::string(text) + " -> " + e).c_str());
    };
    expect_error("cuda -arch=90", "-arch must be a CUDA architecture like sm_90 (got '90')");
    expect_error("cuda -arch=sm_9x", "-arch must be a CUDA architecture");
    expect_error("cuda -max_threads_per_block=0", "-max_threads_per_block must be a positive integer (got '0')");
    expect_error("cuda -max_shared_memory_per_block=lots", "-max_shared_memory_per_block must be a positive integer");
    expect_error("cuda -thread_warp_size=-1", "-thread_warp_size must be a positive integer");
    expect_error("cuda -mcpu=skylake", "unknown target option -mcpu for cuda");
    expect_error("cuda -host=cuda", "-host must be an llvm target (got 'cuda')");
    expect_error("cuda -host=llvm -foo=1", "unknown target option -foo");
    expect_error("cuda -host=notatarget", "-host: unknown target kind 'notatarget'");
    expect_error("cuda arch", "not of the form -key=value");
    expect_error("nvidia/h200 -arch=sm_80", "takes no options");
    expect_error("opencl", "expected 'llvm', 'cuda' or a tag");
  }
};

QTEST_APPLESS_MAIN(TestCudaTarget)
#include "tst_cuda_target.moc"
