// The main window's Go menu (the editor's navigation and completion actions with their
// shortcuts), the References dock that find references fills, and a status bar label with the
// function and blocks that hold the cursor. Kept out of main_window.cpp, which only calls this.
#pragma once

class QMainWindow;
class QMenu;

namespace wb::app {

class CodeEditor;

// Adds the Go menu to `window`'s menu bar (at the end) and returns it.
QMenu* InstallGoMenu(QMainWindow* window, CodeEditor* editor);

}  // namespace wb::app
