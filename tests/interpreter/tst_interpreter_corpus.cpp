// Runs the reference interpreter over every PrimFunc of the TVMScript corpus
// (tests/script/corpus/tir/*.py) whose parameters are all buffers, on seeded random inputs,
// and checks that every run ends without an internal error. Programs may legitimately stop
// with a diagnostic (an external call, an index read from random data that falls outside a
// buffer): those are printed as findings, and the test fails only on internal errors or when
// too few programs run to completion.

#include <QDir>
#include <QTest>
#include <map>
#include <string>

#include "runtime/ndarray.h"
#include "script/tvmscript.h"
#include "tir/interpreter.h"

using namespace wb;
using namespace wb::tir;
using runtime::NDArray;

namespace {

// Builds an argument array for `buffer`: symbolic dimensions become 8 (the same value for the
// same variable), declared strides and element offsets are honoured with a view.
bool MakeArg(const Buffer& buffer, std::map<const VarNode*, int64_t>* sizes, NDArray* out,
             std::string* why) {
  std::vector<int64_t> shape;
  for (const auto& s : buffer->shape) {
    if (const int64_t* c = AsConstInt(s)) {
      shape.push_back(*c);
    } else if (auto* v = s.as<VarNode>()) {
      shape.push_back(sizes->try_emplace(v, 8).first->second);
    } else {
      *why = "shape of " + buffer->name + " is an expression";
      return false;
    }
  }
  runtime::DLDataType t = ToRuntimeDType(buffer->dtype);
  std::vector<int64_t> strides;
  bool strided = false;
  for (const auto& s : buffer->strides) {
    const int64_t* c = AsConstInt(s);
    strides.push_back(c ? *c : 0);
    strided |= c != nullptr;
  }
  int64_t offset = 0;
  if (buffer->elem_offset.defined()) {
    if (const int64_t* c = AsConstInt(buffer->elem_offset)) offset = *c;
  }
  if (!strided && offset == 0) {
    *out = NDArray::Empty(shape, t);
    return true;
  }
  // Fill in symbolic strides as compact ones, then view a large enough base array.
  if (strides.empty()) strides.assign(shape.size(), 0);
  int64_t running = 1;
  for (size_t k = shape.size(); k-- > 0;) {
    if (strides[k] == 0) strides[k] = running;
    running = std::max(running, strides[k] * shape[k]);
  }
  int64_t reach = 1;
  for (size_t k = 0; k < shape.size(); ++k) reach += (shape[k] - 1) * strides[k];
  NDArray base = NDArray::Empty({offset + reach}, t);
  *out = NDArray::View(base, shape, strides, static_cast<uint64_t>(offset * t.ElementBytes()));
  return true;
}

}  // namespace

class TstInterpreterCorpus : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void corpusRunsWithoutInternalErrors() {
    QDir dir(QString(qgetenv("WB_SOURCE_DIR")) + "/tests/script/corpus/tir");
    QStringList files = dir.entryList({"*.py"}, QDir::Files, QDir::Name);
    QVERIFY2(files.size() > 50, qPrintable(dir.path()));
    int ran = 0, ok = 0, skipped = 0, stopped = 0;
    QStringList internal;
    for (const QString& file : files) {
      QFile f(dir.filePath(file));
      QVERIFY(f.open(QIODevice::ReadOnly));
      std::string text = f.readAll().toStdString();
      script::ParseResult parsed = script::Parse(text, file.toStdString());
      if (!parsed.module.defined()) continue;
      const ir::IRModule& mod = parsed.module;
      for (size_t i = 0; i < mod->size(); ++i) {
        auto* func = mod->functions[i].as<PrimFuncNode>();
        if (!func) continue;
        const std::string name = mod->global_vars[i]->name_hint;
        bool buffers_only = !func->params.empty() && !func->ret_type.defined();
        for (size_t p = 0; p < func->params.size(); ++p) {
          buffers_only &= p < func->buffer_map.size() && func->buffer_map[p].defined();
        }
        if (!buffers_only) {
          ++skipped;
          continue;
        }
        std::vector<InterpArg> args;
        std::map<const VarNode*, int64_t> sizes;
        std::string why;
        bool made = true;
        uint64_t seed = 1;
        for (const auto& buffer : func->buffer_map) {
          NDArray a;
          if (!MakeArg(buffer, &sizes, &a, &why)) {
            made = false;
            break;
          }
          // Integers in [0, 7]: index buffers (gather, take) then address their tables.
          runtime::RandomFillOptions fill;
          fill.seed = seed++;
          if (buffer->dtype.is_integer()) {
            fill.low = 0;
            fill.high = 7;
          }
          try {
            runtime::FillRandom(a, fill);
          } catch (const std::invalid_argument& e) {
            why = e.what();
            made = false;
            break;
          }
          args.emplace_back(a);
        }
        if (!made) {
          qInfo("skipped %s:%s: %s", qPrintable(file), name.c_str(), why.c_str());
          ++skipped;
          continue;
        }
        ++ran;
        // Some corpus kernels are full-size (a 1024^3 matmul): stop those early. Stopping is
        // a clean diagnostic too, so it still shows the run is well-behaved up to there.
        InterpretOptions options;
        options.max_iterations = 300'000;
        InterpretResult r = InterpretModule(mod, name, std::move(args), options);
        if (r.ok()) {
          ++ok;
          continue;
        }
        std::string rendered = RenderDiagnostics(r.diagnostics);
        if (rendered.find("loop iterations (InterpretOptions::max_iterations)") != std::string::npos) {
          ++stopped;
          continue;
        }
        qInfo("finding in %s:%s:\n%s", qPrintable(file), name.c_str(), rendered.c_str());
        if (rendered.find("internal error") != std::string::npos) {
          internal << QString::fromStdString(file.toStdString() + ":" + name + ": " + rendered);
        }
      }
    }
    qInfo("corpus: %d functions run, %d completed, %d stopped at the iteration budget, %d skipped "
          "(non-buffer parameters)",
          ran, ok, stopped, skipped);
    QVERIFY2(internal.isEmpty(), qPrintable(internal.join("\n")));
    QVERIFY2(ok + stopped >= 60, qPrintable(QString("only %1 of %2 functions ran to completion").arg(ok).arg(ran)));
  }
};

QTEST_APPLESS_MAIN(TstInterpreterCorpus)
#include "tst_interpreter_corpus.moc"
