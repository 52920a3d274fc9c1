#include "go_menu.h"

#include <QDockWidget>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QStatusBar>

#include "code_editor.h"
#include "references_view.h"

namespace wb::app {

QMenu* InstallGoMenu(QMainWindow* window, CodeEditor* editor) {
  QMenu* go = window->menuBar()->addMenu(QObject::tr("&Go"));
  go->setObjectName("goMenu");
  QList<QAction*> actions = editor->languageActions();
  go->addActions(actions.mid(0, 3));
  go->addSeparator();
  go->addActions(actions.mid(3));

  auto* references = new ReferencesView;
  auto* dock = new QDockWidget(QObject::tr("References"), window);
  dock->setObjectName("referencesDock");
  dock->setWidget(references);
  window->addDockWidget(Qt::BottomDockWidgetArea, dock);
  // Next to the Build & Profile panel when there is one, as a tab: the editor keeps its height.
  if (auto* build = window->findChild<QDockWidget*>("buildDock")) window->tabifyDockWidget(build, dock);
  dock->hide();
  QObject::connect(editor, &CodeEditor::referencesFound, references,
                   [editor, references, dock](const QString& name, const std::vector<lang::Highlight>& places) {
                     references->Show(name, places, editor->document());
                     dock->setWindowTitle(QObject::tr("References to '%1' (%2)").arg(name).arg(places.size()));
                     dock->show();
                     dock->raise();
                   });
  QObject::connect(references, &ReferencesView::placeActivated, editor, &CodeEditor::SelectRange);

  auto* crumb = new QLabel;
  crumb->setObjectName("breadcrumb");
  window->statusBar()->addPermanentWidget(crumb);
  QObject::connect(editor, &CodeEditor::breadcrumbChanged, crumb, &QLabel::setText);
  QObject::connect(editor, &CodeEditor::message, window,
                   [window](const QString& text) { window->statusBar()->showMessage(text, 6000); });
  return go;
}

}  // namespace wb::app
