// The language half of CodeEditor: everything the analysis of lang/analysis.h (the LSP
// server's) answers, asked of an EditorAnalysis snapshot so that parsing never blocks typing.
// Automatic features (occurrence highlights, the breadcrumb, hover, completion after `T.`) use
// the snapshot only once it is of the current text; explicit commands (F12, Shift+F12, the
// symbol popup) wait for it, since positions in an older text would point at the wrong place.
#include <QAction>
#include <QCompleter>
#include <QHeaderView>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QRegularExpression>
#include <QScrollBar>
#include <QStandardItemModel>
#include <QTextBlock>
#include <QTextDocument>
#include <QToolTip>
#include <QTreeView>

#include "code_editor.h"
#include "editor_analysis.h"
#include "symbol_picker.h"

namespace wb::app {

namespace {

using lang::TextPosition;
using lang::TextRange;

bool IsIdentChar(QChar c) { return c.isLetterOrNumber() || c == QLatin1Char('_'); }

// The identifier touching the cursor, selected (Qt's word under the cursor may be the `[` after
// it); an empty selection when there is none.
QTextCursor IdentifierAt(const QTextCursor& at) {
  QString line = at.block().text();
  int begin = at.positionInBlock(), end = begin;
  while (begin > 0 && IsIdentChar(line[begin - 1])) --begin;
  while (end < line.size() && IsIdentChar(line[end])) ++end;
  QTextCursor word = at;
  word.setPosition(at.block().position() + begin);
  word.setPosition(at.block().position() + end, QTextCursor::KeepAnchor);
  return word;
}

// The analyses degrade instead of failing; should one throw all the same, the editor goes on
// without that answer rather than losing the user's text.
template <typename T, typename F>
T Safely(F&& f) {
  try {
    return f();
  } catch (const std::exception&) {
    return T{};
  }
}

QString MarkdownToHtml(const QString& markdown) {
  QTextDocument doc;
  doc.setMarkdown(markdown);
  return doc.toHtml();
}

bool Before(const TextPosition& a, const TextPosition& b) {
  return a.line < b.line || (a.line == b.line && a.character < b.character);
}
bool Contains(const TextRange& range, const TextPosition& p) {
  return !Before(p, range.start) && !Before(range.end, p);
}

// The functions and blocks (outermost first) whose range holds `p`.
void Breadcrumb(const std::vector<lang::DocumentSymbol>& symbols, const TextPosition& p,
                QStringList* out) {
  for (const auto& s : symbols) {
    if (!Contains(s.range, p)) continue;
    if (s.kind == lang::SymbolKind::kFunction || s.kind == lang::SymbolKind::kBlock) {
      *out << QString::fromStdString(s.name);
    }
    Breadcrumb(s.children, p, out);
    return;
  }
}

QString CompletionKindName(lang::CompletionKind kind) {
  switch (kind) {
    case lang::CompletionKind::kFunction: return QStringLiteral("function");
    case lang::CompletionKind::kKeyword: return QStringLiteral("keyword");
    case lang::CompletionKind::kVariable: return QStringLiteral("variable");
    case lang::CompletionKind::kBuffer: return QStringLiteral("buffer");
    case lang::CompletionKind::kConstant: return QStringLiteral("constant");
    case lang::CompletionKind::kModule: return QStringLiteral("namespace");
  }
  return {};
}

// A namespace just typed before the cursor: `T.`, `I.`, `R.`, `R.nn.`, `T.axis.`, `sch.`.
bool AfterNamespaceDot(const QString& line_before_cursor) {
  static const QRegularExpression re(QStringLiteral("(^|[^\\w.])(T|I|R|sch|T\\.axis|R(\\.\\w+)*)\\.$"));
  return re.match(line_before_cursor).hasMatch();
}

}  // namespace

void CodeEditor::SetUpLanguageFeatures() {
  analysis_ = new EditorAnalysis(this);
  picker_ = new SymbolPicker(this);
  viewport()->setMouseTracking(true);  // Ctrl+hover shows names as links
  connect(picker_, &SymbolPicker::chosen, this, &CodeEditor::SelectRange);

  auto action = [this](const QString& text, const QList<QKeySequence>& keys, auto slot) {
    auto* a = new QAction(text, this);
    a->setShortcuts(keys);
    // Only while the editor has the focus: F12 in the pass list means nothing to the editor.
    a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(a, &QAction::triggered, this, slot);
    addAction(a);
    return a;
  };
  go_to_symbol_ = action(tr("Go to &Symbol..."),
                         {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O), QKeySequence(Qt::CTRL | Qt::Key_P)},
                         [this] { ShowSymbolPicker(); });
  go_to_definition_ = action(tr("Go to &Definition"), {QKeySequence(Qt::Key_F12)}, [this] { GoToDefinition(); });
  find_references_ = action(tr("Find &References"), {QKeySequence(Qt::SHIFT | Qt::Key_F12)},
                            [this] { FindReferences(); });
  complete_ = action(tr("&Complete"), {QKeySequence(Qt::CTRL | Qt::Key_Space)}, [this] { TriggerCompletion(); });
  signature_help_ = action(tr("Si&gnature Help"), {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Space)},
                           [this] {
                             if (!ShowSignatureHelp()) Q_EMIT message(tr("Not inside a call"));
                           });

  completion_model_ = new QStandardItemModel(this);
  completer_ = new QCompleter(completion_model_, this);
  // Two columns: the label, which filters, and its detail (a signature, a dtype).
  auto* popup = new QTreeView;
  popup->setHeaderHidden(true);
  popup->setRootIsDecorated(false);
  popup->setUniformRowHeights(true);
  popup->setSelectionBehavior(QAbstractItemView::SelectRows);
  popup->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);  // long signatures are elided
  popup->setTextElideMode(Qt::ElideRight);
  completer_->setPopup(popup);
  completer_->setWidget(this);
  completer_->setCompletionMode(QCompleter::PopupCompletion);
  completer_->setCaseSensitivity(Qt::CaseInsensitive);
  completer_->setFilterMode(Qt::MatchStartsWith);
  completer_->setModelSorting(QCompleter::CaseInsensitivelySortedModel);
  completer_->setCompletionColumn(0);
  completer_->setMaxVisibleItems(12);
  connect(completer_, qOverload<const QString&>(&QCompleter::activated), this, &CodeEditor::InsertCompletion);

  connect(this, &QPlainTextEdit::textChanged, this, [this] { analysis_->SetText(toPlainText()); });
  connect(this, &QPlainTextEdit::cursorPositionChanged, this, &CodeEditor::OnCursorMoved);
  connect(analysis_, &EditorAnalysis::snapshotReady, this, &CodeEditor::OnSnapshotReady);
}

QList<QAction*> CodeEditor::languageActions() const {
  return {go_to_symbol_, go_to_definition_, find_references_, complete_, signature_help_};
}

TextPosition CodeEditor::PositionOf(const QTextCursor& cursor) const {
  // Qt counts UTF-16 code units within a block, as LSP positions do.
  return {static_cast<uint32_t>(cursor.blockNumber()), static_cast<uint32_t>(cursor.positionInBlock())};
}

QTextCursor CodeEditor::CursorAt(TextPosition position) const {
  QTextCursor cursor(document());
  QTextBlock block = document()->findBlockByNumber(static_cast<int>(position.line));
  if (!block.isValid()) {
    cursor.movePosition(QTextCursor::End);
    return cursor;
  }
  int column = std::min<int>(static_cast<int>(position.character), block.length() - 1);
  cursor.setPosition(block.position() + column);
  return cursor;
}

void CodeEditor::SelectRange(const TextRange& range) {
  QTextCursor cursor = textCursor();
  cursor.setPosition(CursorAt(range.start).position());
  cursor.setPosition(CursorAt(range.end).position(), QTextCursor::KeepAnchor);
  setTextCursor(cursor);
  centerCursor();
  setFocus();
}

QString CodeEditor::WordAtCursor() const { return IdentifierAt(textCursor()).selectedText(); }

void CodeEditor::ShowSymbolPicker() {
  auto snapshot = analysis_->Current();
  std::vector<SymbolEntry> entries = FlattenSymbols(snapshot->symbols);
  // Opened all the same: ":line" still works.
  if (entries.empty()) Q_EMIT message(tr("No symbols to go to: no function of the document parses"));
  picker_->Open(std::move(entries));
}

bool CodeEditor::GoToDefinition() {
  auto snapshot = analysis_->Current();
  TextPosition at = PositionOf(textCursor());
  auto found = Safely<std::vector<TextRange>>([&] { return lang::FindDefinition(*snapshot->doc, at); });
  if (found.empty()) {
    QString word = WordAtCursor();
    Q_EMIT message(word.isEmpty() ? tr("No name at the cursor")
                                  : tr("No definition of '%1' in this document").arg(word));
    return false;
  }
  SelectRange(found.front());
  return true;
}

bool CodeEditor::FindReferences() {
  auto snapshot = analysis_->Current();
  TextPosition at = PositionOf(textCursor());
  auto places = Safely<std::vector<lang::Highlight>>(
      [&] { return lang::ComputeHighlights(*snapshot->doc, at); });
  if (places.empty()) {
    QString word = WordAtCursor();
    Q_EMIT message(word.isEmpty() ? tr("No name at the cursor")
                                  : tr("'%1' names nothing this document defines").arg(word));
    return false;
  }
  QTextCursor name(document());
  name.setPosition(CursorAt(places.front().range.start).position());
  name.setPosition(CursorAt(places.front().range.end).position(), QTextCursor::KeepAnchor);
  Q_EMIT referencesFound(name.selectedText(), places);
  return true;
}

QString CodeEditor::HoverMarkdownAt(int position) const {
  position = std::clamp(position, 0, std::max(0, document()->characterCount() - 1));
  QStringList parts;
  for (const auto& sel : diagnostic_selections_) {
    if (sel.cursor.selectionStart() <= position && position <= sel.cursor.selectionEnd()) {
      parts << sel.format.toolTip();
    }
  }
  if (analysis_->upToDate()) {
    QTextCursor cursor(document());
    cursor.setPosition(position);
    TextPosition at = PositionOf(cursor);
    auto doc = analysis_->latest()->doc;
    auto hover = Safely<std::optional<lang::HoverInfo>>([&] { return lang::ComputeHover(*doc, at); });
    if (hover && !hover->markdown.empty()) parts << QString::fromStdString(hover->markdown);
  }
  return parts.join(QStringLiteral("\n\n---\n\n"));
}

bool CodeEditor::viewportEvent(QEvent* event) {
  if (event->type() != QEvent::ToolTip) return QPlainTextEdit::viewportEvent(event);
  auto* help = static_cast<QHelpEvent*>(event);
  QTextCursor cursor = cursorForPosition(help->pos());
  // Past the end of a line the nearest position is the line's end: nothing is under the mouse.
  QRect rect = cursorRect(cursor);
  bool over_text = help->pos().x() <= rect.right() + fontMetrics().horizontalAdvance(QLatin1Char('M')) &&
                   help->pos().y() >= rect.top() && help->pos().y() <= rect.bottom();
  QString markdown = over_text ? HoverMarkdownAt(cursor.position()) : QString();
  if (markdown.isEmpty()) {
    QToolTip::hideText();
    event->ignore();
  } else {
    QToolTip::showText(help->globalPos(), MarkdownToHtml(markdown), viewport());
  }
  return true;
}

void CodeEditor::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ControlModifier)) {
    setTextCursor(cursorForPosition(event->position().toPoint()));
    GoToDefinition();
    event->accept();
    return;
  }
  QPlainTextEdit::mousePressEvent(event);
}

void CodeEditor::mouseMoveEvent(QMouseEvent* event) {
  QPlainTextEdit::mouseMoveEvent(event);
  // With Ctrl held, a name that has a definition reads as a link (Ctrl+click follows it).
  QList<QTextEdit::ExtraSelection> link;
  if ((event->modifiers() & Qt::ControlModifier) && event->buttons() == Qt::NoButton && analysis_->upToDate()) {
    QTextCursor at = cursorForPosition(event->position().toPoint());
    auto doc = analysis_->latest()->doc;
    TextPosition p = PositionOf(at);
    auto found = Safely<std::vector<TextRange>>([&] { return lang::FindDefinition(*doc, p); });
    if (!found.empty()) {
      QTextEdit::ExtraSelection sel;
      sel.cursor = IdentifierAt(at);
      sel.format.setFontUnderline(true);
      sel.format.setForeground(palette().color(QPalette::Link));
      link << sel;
    }
  }
  if (link.isEmpty() && link_selections_.isEmpty()) return;
  link_selections_ = link;
  viewport()->setCursor(link.isEmpty() ? Qt::IBeamCursor : Qt::PointingHandCursor);
  UpdateExtraSelections();
}

void CodeEditor::keyReleaseEvent(QKeyEvent* event) {
  QPlainTextEdit::keyReleaseEvent(event);
  if (event->key() == Qt::Key_Control && !link_selections_.isEmpty()) {
    link_selections_.clear();
    viewport()->setCursor(Qt::IBeamCursor);
    UpdateExtraSelections();
  }
}

void CodeEditor::OnCursorMoved() {
  occurrence_selections_.clear();
  QString crumb = breadcrumb_;
  if (analysis_->upToDate()) {
    auto snapshot = analysis_->latest();
    TextPosition at = PositionOf(textCursor());
    auto places = Safely<std::vector<lang::Highlight>>(
        [&] { return lang::ComputeHighlights(*snapshot->doc, at); });
    for (const auto& place : places) {
      QTextEdit::ExtraSelection sel;
      sel.format.setBackground(place.is_definition ? QColor(230, 160, 40, 90) : QColor(128, 128, 128, 70));
      sel.cursor = QTextCursor(document());
      sel.cursor.setPosition(CursorAt(place.range.start).position());
      sel.cursor.setPosition(CursorAt(place.range.end).position(), QTextCursor::KeepAnchor);
      occurrence_selections_.push_back(sel);
    }
    QStringList names;
    Breadcrumb(snapshot->symbols, at, &names);
    crumb = names.join(QStringLiteral(" › "));
  }
  UpdateExtraSelections();
  if (crumb != breadcrumb_) {
    breadcrumb_ = crumb;
    Q_EMIT breadcrumbChanged(breadcrumb_);
  }
  if (completer_->popup()->isVisible()) UpdateCompletionPrefix();
}

void CodeEditor::OnSnapshotReady() {
  if (!analysis_->upToDate()) return;  // a newer text is being analyzed
  OnCursorMoved();
  if (completion_pending_) {
    completion_pending_ = false;
    // Only where it was asked for, or further along the same word: a cursor that has moved
    // elsewhere meanwhile no longer wants these items.
    int at = textCursor().position();
    QTextCursor typed(document());
    typed.setPosition(std::min(completion_request_, document()->characterCount() - 1));
    typed.setPosition(at, QTextCursor::KeepAnchor);
    QString since = typed.selectedText();
    if (at >= completion_request_ && std::all_of(since.begin(), since.end(), IsIdentChar)) ShowCompletions();
  }
}

void CodeEditor::TriggerCompletion() {
  completion_pending_ = true;
  completion_request_ = textCursor().position();
  analysis_->SetText(toPlainText());
  if (analysis_->upToDate()) {
    completion_pending_ = false;
    ShowCompletions();
  }
}

std::vector<lang::CompletionItem> CodeEditor::CompletionsAtCursor() {
  auto snapshot = analysis_->Current();
  TextPosition at = PositionOf(textCursor());
  return Safely<std::vector<lang::CompletionItem>>(
      [&] { return lang::ComputeCompletion(*snapshot->doc, at); });
}

void CodeEditor::ShowCompletions() {
  std::vector<lang::CompletionItem> items = CompletionsAtCursor();
  // Alphabetical, so that the shortest of a family comes first (`sblock` before
  // `sblock_alloc_buffer`) and the completer can search the model by halves.
  std::stable_sort(items.begin(), items.end(), [](const auto& a, const auto& b) {
    return QString::fromStdString(a.label).compare(QString::fromStdString(b.label), Qt::CaseInsensitive) < 0;
  });
  completion_model_->clear();
  for (const auto& item : items) {
    auto* label = new QStandardItem(QString::fromStdString(item.label));
    auto* detail = new QStandardItem(QString::fromStdString(item.detail.empty() ? CompletionKindName(item.kind).toStdString()
                                                                                : item.detail));
    detail->setForeground(palette().color(QPalette::PlaceholderText));
    if (!item.documentation.empty()) label->setToolTip(QString::fromStdString(item.documentation));
    completion_model_->appendRow({label, detail});
  }
  // The word being completed: identifier characters back from the cursor (a scope such as
  // "shared.dyn" inside a string keeps its dots).
  QTextCursor cursor = textCursor();
  QString line = cursor.block().text();
  int column = cursor.positionInBlock();
  bool in_string = line.left(column).count(QLatin1Char('"')) % 2 == 1 || line.left(column).count(QLatin1Char('\'')) % 2 == 1;
  int start = column;
  while (start > 0 && (IsIdentChar(line[start - 1]) || (in_string && line[start - 1] == QLatin1Char('.')))) --start;
  completion_start_ = cursor.block().position() + start;
  if (items.empty()) {
    completer_->popup()->hide();
    return;
  }
  completer_->setCompletionPrefix(line.mid(start, column - start));
  if (completer_->completionCount() == 0) {
    completer_->popup()->hide();
    return;
  }
  auto* view = static_cast<QTreeView*>(completer_->popup());
  view->resizeColumnToContents(0);
  view->resizeColumnToContents(1);
  view->setCurrentIndex(completer_->completionModel()->index(0, 0));
  QRect rect = cursorRect();
  rect.translate(viewport()->geometry().topLeft());
  rect.setWidth(std::min(720, view->columnWidth(0) + view->columnWidth(1) + view->verticalScrollBar()->sizeHint().width() + 8));
  completer_->complete(rect);
}

void CodeEditor::UpdateCompletionPrefix() {
  int position = textCursor().position();
  QTextCursor word(document());
  word.setPosition(std::min(completion_start_, document()->characterCount() - 1));
  word.setPosition(position, QTextCursor::KeepAnchor);
  QString prefix = word.selectedText();
  bool is_word = position >= completion_start_ &&
                 std::all_of(prefix.begin(), prefix.end(), [](QChar c) { return IsIdentChar(c) || c == QLatin1Char('.'); });
  if (!is_word) {
    completer_->popup()->hide();
    return;
  }
  completer_->setCompletionPrefix(prefix);
  if (completer_->completionCount() == 0) {
    completer_->popup()->hide();
    return;
  }
  completer_->popup()->setCurrentIndex(completer_->completionModel()->index(0, 0));
}

void CodeEditor::InsertCompletion(const QString& label) {
  QTextCursor cursor = textCursor();
  int end = cursor.position();
  if (completion_start_ > end) return;
  cursor.setPosition(completion_start_);
  cursor.setPosition(end, QTextCursor::KeepAnchor);
  cursor.insertText(label);
  setTextCursor(cursor);
}

bool CodeEditor::ShowSignatureHelp() {
  // Signature help scans the text and never parses: a throwaway document of the current text
  // answers at once, even while the snapshot lags a keystroke behind.
  lang::Document doc("editor.py", toPlainText().toStdString(), 0);
  TextPosition at = PositionOf(textCursor());
  auto help = Safely<std::optional<lang::SignatureHelp>>([&] { return lang::ComputeSignatureHelp(doc, at); });
  if (!help) {
    if (!signature_label_.isEmpty()) QToolTip::hideText();
    signature_label_.clear();
    return false;
  }
  // The label with the active parameter in bold (parameters are its substrings, in order).
  QString label = QString::fromStdString(help->label);
  QString html;
  int from = 0;
  for (int i = 0; i < static_cast<int>(help->parameters.size()); ++i) {
    QString param = QString::fromStdString(help->parameters[i]);
    int at_param = label.indexOf(param, from);
    if (at_param < 0) break;
    html += label.mid(from, at_param - from).toHtmlEscaped();
    html += i == help->active_parameter ? QStringLiteral("<b><u>%1</u></b>").arg(param.toHtmlEscaped())
                                        : param.toHtmlEscaped();
    from = at_param + param.size();
  }
  html += label.mid(from).toHtmlEscaped();
  html = QStringLiteral("<code>%1</code>").arg(html);
  if (!help->documentation.empty()) html += MarkdownToHtml(QString::fromStdString(help->documentation));
  signature_label_ = label;
  signature_active_ = help->active_parameter;
  QRect rect = cursorRect();
  QPoint below = viewport()->mapToGlobal(rect.bottomLeft());
  QToolTip::showText(below, html, viewport());
  return true;
}

void CodeEditor::keyPressEvent(QKeyEvent* event) {
  if (completer_->popup()->isVisible()) {
    switch (event->key()) {
      case Qt::Key_Enter:
      case Qt::Key_Return:
      case Qt::Key_Escape:
      case Qt::Key_Tab:
      case Qt::Key_Backtab:
        event->ignore();  // the completer takes these
        return;
      default:
        break;
    }
  }
  if (event->key() == Qt::Key_Escape && !signature_label_.isEmpty()) {
    QToolTip::hideText();
    signature_label_.clear();
    event->accept();
    return;
  }
  QPlainTextEdit::keyPressEvent(event);
  QString typed = event->text();
  if (typed.isEmpty() || event->key() == Qt::Key_Escape) return;
  QTextCursor cursor = textCursor();
  QString before = cursor.block().text().left(cursor.positionInBlock());
  if (typed == QLatin1String(".") && AfterNamespaceDot(before)) {
    TriggerCompletion();
  } else if (typed == QLatin1String("(") || typed == QLatin1String(",")) {
    ShowSignatureHelp();
  } else if (typed == QLatin1String(")")) {
    if (!signature_label_.isEmpty()) ShowSignatureHelp();
  } else if ((typed == QLatin1String("\"") || typed == QLatin1String("'")) &&
             before.count(typed[0]) % 2 == 1 && ShowSignatureHelp()) {
    TriggerCompletion();  // a dtype or a scope, inside a call
  } else {
    if (completer_->popup()->isVisible()) UpdateCompletionPrefix();
    // The tooltip hides on any key: while typing the arguments of a call the signature stays,
    // its active parameter following the cursor, until the call is closed.
    if (!signature_label_.isEmpty()) ShowSignatureHelp();
  }
}

}  // namespace wb::app
