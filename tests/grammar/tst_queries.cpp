// Checks the tree-sitter setup: the tree-sitter-python parser loads into the system
// runtime (parser ABI), and grammar/queries/*.scm compile and capture what the
// TVMScript highlighter, navigation and folding rely on.
//
// The tree-sitter 0.20 C API does not evaluate predicates (#match?, #eq?...): this
// test evaluates them itself, as the real consumers must.

#include <tree_sitter/api.h>

#include <QFile>
#include <QRegularExpression>
#include <QSet>
#include <QString>
#include <QTest>

#include <memory>
#include <utility>
#include <vector>

extern "C" const TSLanguage* tree_sitter_python(void);

namespace {

const char kSample[] = R"py(# A matmul in TVMScript.
from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"),
             C: T.Buffer((128, 128), "float32")):
        T.func_attr({"tir.noalias": True})
        for i, j, k in T.grid(128, 128, 128):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vj, vk]
)py";

struct QueryDeleter {
  void operator()(TSQuery* q) const { ts_query_delete(q); }
};
struct ParserDeleter {
  void operator()(TSParser* p) const { ts_parser_delete(p); }
};
struct TreeDeleter {
  void operator()(TSTree* t) const { ts_tree_delete(t); }
};
struct CursorDeleter {
  void operator()(TSQueryCursor* c) const { ts_query_cursor_delete(c); }
};
using QueryPtr = std::unique_ptr<TSQuery, QueryDeleter>;

const char* errorName(TSQueryError e) {
  switch (e) {
    case TSQueryErrorNone: return "none";
    case TSQueryErrorSyntax: return "syntax";
    case TSQueryErrorNodeType: return "unknown node type";
    case TSQueryErrorField: return "unknown field";
    case TSQueryErrorCapture: return "unknown capture";
    case TSQueryErrorStructure: return "impossible pattern structure";
    case TSQueryErrorLanguage: return "language";
  }
  return "?";
}

QByteArray readQuery(const QString& name) {
  QFile f(QStringLiteral(WB_GRAMMAR_QUERY_DIR "/") + name);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return f.readAll();
}

// Compiles `source`; on failure returns null and describes the error in `error`.
QueryPtr compileQuery(const QByteArray& source, QString* error) {
  uint32_t offset = 0;
  TSQueryError type = TSQueryErrorNone;
  TSQuery* q = ts_query_new(tree_sitter_python(), source.constData(),
                            static_cast<uint32_t>(source.size()), &offset, &type);
  if (!q) {
    const QByteArray before = source.left(offset);
    const int line = before.count('\n') + 1;
    const int column = offset - (before.lastIndexOf('\n') + 1) + 1;
    *error = QStringLiteral("%1 error at offset %2 (line %3, column %4): near \"%5\"")
                 .arg(QLatin1String(errorName(type)))
                 .arg(offset)
                 .arg(line)
                 .arg(column)
                 .arg(QString::fromUtf8(source.mid(offset, 40)));
  }
  return QueryPtr(q);
}

struct Capture {
  QString name;
  QString text;
  TSNode node;
};

class Runner {
 public:
  explicit Runner(const QByteArray& source) : source_(source), parser_(ts_parser_new()) {
    ts_parser_set_language(parser_.get(), tree_sitter_python());
    tree_.reset(ts_parser_parse_string(parser_.get(), nullptr, source_.constData(),
                                       static_cast<uint32_t>(source_.size())));
  }

  TSNode root() const { return ts_tree_root_node(tree_.get()); }

  QString text(TSNode n) const {
    const uint32_t b = ts_node_start_byte(n), e = ts_node_end_byte(n);
    return QString::fromUtf8(source_.constData() + b, static_cast<int>(e - b));
  }

  // All captures of matches whose predicates hold. Unknown predicates and invalid
  // regexes are reported in `problems`, so a typo in a query fails the test.
  std::vector<Capture> run(const TSQuery* query, QStringList* problems) const {
    std::unique_ptr<TSQueryCursor, CursorDeleter> cursor(ts_query_cursor_new());
    ts_query_cursor_exec(cursor.get(), query, root());
    std::vector<Capture> out;
    TSQueryMatch match;
    while (ts_query_cursor_next_match(cursor.get(), &match)) {
      if (!predicatesHold(query, match, problems)) continue;
      for (uint16_t i = 0; i < match.capture_count; ++i) {
        uint32_t len = 0;
        const char* name = ts_query_capture_name_for_id(query, match.captures[i].index, &len);
        out.push_back({QString::fromUtf8(name, static_cast<int>(len)),
                       text(match.captures[i].node), match.captures[i].node});
      }
    }
    return out;
  }

 private:
  struct Arg {
    bool isCapture;
    uint32_t id;
  };

  QStringList captureTexts(const TSQueryMatch& m, uint32_t captureId) const {
    QStringList texts;
    for (uint16_t i = 0; i < m.capture_count; ++i)
      if (m.captures[i].index == captureId) texts << text(m.captures[i].node);
    return texts;
  }

  bool predicatesHold(const TSQuery* q, const TSQueryMatch& m, QStringList* problems) const {
    uint32_t stepCount = 0;
    const TSQueryPredicateStep* steps =
        ts_query_predicates_for_pattern(q, m.pattern_index, &stepCount);
    auto str = [q](uint32_t id) {
      uint32_t len = 0;
      const char* s = ts_query_string_value_for_id(q, id, &len);
      return QString::fromUtf8(s, static_cast<int>(len));
    };
    bool ok = true;
    for (uint32_t i = 0; i < stepCount;) {
      std::vector<Arg> args;
      for (; steps[i].type != TSQueryPredicateStepTypeDone; ++i)
        args.push_back({steps[i].type == TSQueryPredicateStepTypeCapture, steps[i].value_id});
      ++i;  // the Done step
      if (args.empty() || args[0].isCapture) {
        *problems << QStringLiteral("pattern %1: malformed predicate").arg(m.pattern_index);
        continue;
      }
      const QString op = str(args[0].id);
      if (op == QLatin1String("set!")) continue;  // a property, not a condition
      const bool negate = op.startsWith(QLatin1String("not-"));
      const QString base = negate ? op.mid(4) : op;
      if (args.size() != 3 || !args[1].isCapture ||
          (base != QLatin1String("match?") && base != QLatin1String("eq?"))) {
        *problems << QStringLiteral("pattern %1: unsupported predicate #%2 with %3 arguments")
                         .arg(m.pattern_index)
                         .arg(op)
                         .arg(args.size() - 1);
        continue;
      }
      const QStringList subjects = captureTexts(m, args[1].id);
      for (const QString& subject : subjects) {
        bool holds = false;
        if (base == QLatin1String("match?")) {
          if (args[2].isCapture) {
            *problems << QStringLiteral("pattern %1: #%2 needs a regex").arg(m.pattern_index).arg(op);
            continue;
          }
          const QRegularExpression re(str(args[2].id));
          if (!re.isValid()) {
            *problems << QStringLiteral("pattern %1: invalid regex %2: %3")
                             .arg(m.pattern_index)
                             .arg(re.pattern(), re.errorString());
            continue;
          }
          holds = re.match(subject).hasMatch();
        } else {
          const QStringList others =
              args[2].isCapture ? captureTexts(m, args[2].id) : QStringList{str(args[2].id)};
          holds = !others.isEmpty() && others.front() == subject;
        }
        if (holds == negate) ok = false;
      }
    }
    return ok;
  }

  QByteArray source_;
  std::unique_ptr<TSParser, ParserDeleter> parser_;
  std::unique_ptr<TSTree, TreeDeleter> tree_;
};

bool has(const std::vector<Capture>& caps, const QString& name, const QString& text) {
  for (const Capture& c : caps)
    if (c.name == name && c.text == text) return true;
  return false;
}

int count(const std::vector<Capture>& caps, const QString& name, const QString& text) {
  int n = 0;
  for (const Capture& c : caps) n += c.name == name && c.text == text;
  return n;
}

QSet<QString> textsOf(const std::vector<Capture>& caps, const QString& name) {
  QSet<QString> out;
  for (const Capture& c : caps)
    if (c.name == name) out.insert(c.text);
  return out;
}

QString dump(const std::vector<Capture>& caps) {
  QStringList lines;
  for (const Capture& c : caps)
    lines << QStringLiteral("@%1 %2").arg(c.name, c.text.left(40).replace('\n', ' '));
  return lines.join('\n');
}

}  // namespace

class TestQueries : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void languageLoads() {
    const TSLanguage* lang = tree_sitter_python();
    QVERIFY(lang != nullptr);
    const uint32_t abi = ts_language_version(lang);
    QVERIFY2(abi >= TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION &&
                 abi <= TREE_SITTER_LANGUAGE_VERSION,
             qPrintable(QStringLiteral("parser ABI %1, runtime reads %2..%3")
                            .arg(abi)
                            .arg(TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION)
                            .arg(TREE_SITTER_LANGUAGE_VERSION)));
    std::unique_ptr<TSParser, ParserDeleter> parser(ts_parser_new());
    QVERIFY2(ts_parser_set_language(parser.get(), lang),
             "ts_parser_set_language failed: parser ABI not supported by the runtime");
  }

  void sampleParses() {
    Runner r(kSample);
    QVERIFY2(!ts_node_has_error(r.root()), "the TVMScript sample does not parse cleanly");
    QCOMPARE(QString::fromLatin1(ts_node_type(r.root())), QStringLiteral("module"));
  }

  void queriesCompile_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QStringList>("requiredCaptures");
    QTest::newRow("highlights") << QStringLiteral("highlights.scm")
                                << QStringList{"namespace", "attribute", "type.dtype", "label",
                                               "variable.buffer", "keyword", "string",
                                               "number", "comment", "function"};
    QTest::newRow("locals") << QStringLiteral("locals.scm")
                            << QStringList{"local.scope", "local.definition.var",
                                           "local.definition.parameter", "local.reference"};
    QTest::newRow("folds") << QStringLiteral("folds.scm") << QStringList{"fold"};
  }

  void queriesCompile() {
    QFETCH(QString, file);
    QFETCH(QStringList, requiredCaptures);
    const QByteArray source = readQuery(file);
    QVERIFY2(!source.isEmpty(), qPrintable(QStringLiteral("cannot read %1 in %2")
                                               .arg(file, QStringLiteral(WB_GRAMMAR_QUERY_DIR))));
    QString error;
    QueryPtr q = compileQuery(source, &error);
    QVERIFY2(q, qPrintable(file + QStringLiteral(": ") + error));
    QVERIFY(ts_query_pattern_count(q.get()) > 0);
    QSet<QString> names;
    for (uint32_t i = 0; i < ts_query_capture_count(q.get()); ++i) {
      uint32_t len = 0;
      const char* n = ts_query_capture_name_for_id(q.get(), i, &len);
      names.insert(QString::fromUtf8(n, static_cast<int>(len)));
    }
    for (const QString& c : requiredCaptures)
      QVERIFY2(names.contains(c), qPrintable(file + QStringLiteral(" lacks @") + c));
  }

  void highlightsCaptureTvmScript() {
    QString error;
    QueryPtr q = compileQuery(readQuery(QStringLiteral("highlights.scm")), &error);
    QVERIFY2(q, qPrintable(error));
    Runner r(kSample);
    QStringList problems;
    const std::vector<Capture> caps = r.run(q.get(), &problems);
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
    const QByteArray all = dump(caps).toUtf8();

    // Namespaces: the import aliases and every T./I. attribute object.
    QCOMPARE(count(caps, "namespace", "I"), 2);
    QCOMPARE(count(caps, "namespace", "T"), 11);  // import alias + 10 uses
    // The predicate must be evaluated: other attribute objects are not namespaces.
    const QSet<QString> namespaces = textsOf(caps, "namespace");
    QVERIFY2(namespaces == (QSet<QString>{"T", "I"}), all.constData());

    // Decorators.
    QVERIFY2(has(caps, "attribute", "ir_module"), all.constData());
    QVERIFY2(has(caps, "attribute", "prim_func"), all.constData());
    QVERIFY2(has(caps, "attribute", "@"), all.constData());

    // Block name: the first string argument of T.sblock, and only that.
    QVERIFY2(has(caps, "label", "\"C\""), all.constData());
    QCOMPARE(textsOf(caps, "label"), QSet<QString>{"\"C\""});

    // Data types, as strings and as T.<dtype>; "SSR" and "tir.noalias" are not dtypes.
    QVERIFY2(has(caps, "type.dtype", "\"float32\""), all.constData());
    QVERIFY2(has(caps, "type.dtype", "float32"), all.constData());
    QVERIFY2(!has(caps, "type.dtype", "\"SSR\""), all.constData());
    QVERIFY2(!has(caps, "type.dtype", "\"tir.noalias\""), all.constData());

    // Buffer accesses.
    QVERIFY2(has(caps, "variable.buffer", "A"), all.constData());
    QVERIFY2(has(caps, "variable.buffer", "B"), all.constData());
    QVERIFY2(has(caps, "variable.buffer", "C"), all.constData());
    QVERIFY2(!has(caps, "variable.buffer", "vi"), all.constData());

    // Builtins through a namespace, types.
    QVERIFY2(has(caps, "function.builtin", "grid"), all.constData());
    QVERIFY2(has(caps, "function.builtin", "sblock"), all.constData());
    QVERIFY2(has(caps, "type", "Buffer"), all.constData());

    // Plain Python.
    QVERIFY2(has(caps, "keyword", "for"), all.constData());
    QVERIFY2(has(caps, "keyword", "with"), all.constData());
    QVERIFY2(has(caps, "keyword", "def"), all.constData());
    QVERIFY2(has(caps, "keyword", "import"), all.constData());
    QVERIFY2(has(caps, "number", "128"), all.constData());
    QVERIFY2(has(caps, "number.float", "0.0"), all.constData());
    QVERIFY2(has(caps, "comment", "# A matmul in TVMScript."), all.constData());
    QVERIFY2(has(caps, "string", "\"SSR\""), all.constData());
    QVERIFY2(has(caps, "function", "main"), all.constData());
    QVERIFY2(has(caps, "type", "Module"), all.constData());
    QVERIFY2(has(caps, "constant.builtin", "True"), all.constData());
    QVERIFY2(has(caps, "module", "tvm"), all.constData());
  }

  void localsFindDefinitionsAndScopes() {
    QString error;
    QueryPtr q = compileQuery(readQuery(QStringLiteral("locals.scm")), &error);
    QVERIFY2(q, qPrintable(error));
    Runner r(kSample);
    QStringList problems;
    const std::vector<Capture> caps = r.run(q.get(), &problems);
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
    const QByteArray all = dump(caps).toUtf8();

    QCOMPARE(textsOf(caps, "local.definition.parameter"), (QSet<QString>{"A", "B", "C"}));
    QCOMPARE(textsOf(caps, "local.definition.var"),
             (QSet<QString>{"i", "j", "k", "vi", "vj", "vk"}));
    QCOMPARE(textsOf(caps, "local.definition.import"), (QSet<QString>{"T", "I"}));
    QVERIFY2(has(caps, "local.definition.function", "main"), all.constData());
    QVERIFY2(has(caps, "local.reference", "vk"), all.constData());

    // `with ... as x` defines x.
    Runner r2("with T.allocate([4], \"float32\") as x:\n    pass\n");
    const std::vector<Capture> caps2 = r2.run(q.get(), &problems);
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
    QVERIFY2(has(caps2, "local.definition.var", "x"), dump(caps2).toUtf8().constData());

    QSet<QString> scopeTypes;
    for (const Capture& c : caps)
      if (c.name == QLatin1String("local.scope")) {
        QString type = QString::fromLatin1(ts_node_type(c.node));
        if (type == QLatin1String("block"))
          type = QString::fromLatin1(ts_node_type(ts_node_parent(c.node))) + "/block";
        scopeTypes.insert(type);
      }
    for (const char* t : {"module", "class_definition", "function_definition", "for_statement",
                          "with_statement/block"})
      QVERIFY2(scopeTypes.contains(QLatin1String(t)),
               qPrintable(QStringLiteral("no @local.scope on %1").arg(QLatin1String(t))));
  }

  void foldsCoverBlocks() {
    QString error;
    QueryPtr q = compileQuery(readQuery(QStringLiteral("folds.scm")), &error);
    QVERIFY2(q, qPrintable(error));
    Runner r(kSample);
    QStringList problems;
    const std::vector<Capture> caps = r.run(q.get(), &problems);
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));

    QMap<QString, int> multiLine;
    for (const Capture& c : caps) {
      QCOMPARE(c.name, QStringLiteral("fold"));
      if (ts_node_end_point(c.node).row > ts_node_start_point(c.node).row)
        ++multiLine[QString::fromLatin1(ts_node_type(c.node))];
    }
    QCOMPARE(multiLine.value("class_definition"), 1);
    QCOMPARE(multiLine.value("function_definition"), 1);
    QCOMPARE(multiLine.value("for_statement"), 1);
    QCOMPARE(multiLine.value("with_statement"), 2);
    QCOMPARE(multiLine.value("parameters"), 1);
  }
};

QTEST_GUILESS_MAIN(TestQueries)
#include "tst_queries.moc"
