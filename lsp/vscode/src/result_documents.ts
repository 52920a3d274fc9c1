// Read-only documents holding the workbench commands' results (a module before and after a pass
// or a schedule step), shown in diff tabs. Their paths end in `.tvmscript.py`, so they open in
// the TVMScript language with its highlighting.
import * as vscode from 'vscode';

export const RESULT_SCHEME = 'tvmscript-result';

export class ResultDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private next = 0;
  private readonly closing: vscode.Disposable;

  constructor() {
    // A result is kept while its tab is open; the text can be large (a whole module per pass).
    this.closing = vscode.workspace.onDidCloseTextDocument((doc) => {
      if (doc.uri.scheme === RESULT_SCHEME) this.texts.delete(doc.uri.toString());
    });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }

  // A new document for `text`; `name` is what its tab shows (no path separators).
  put(name: string, text: string): vscode.Uri {
    const safe = name.replace(/[\\/:*?"<>|]+/g, '_');
    const uri = vscode.Uri.from({ scheme: RESULT_SCHEME, path: `/${++this.next}/${safe}.tvmscript.py` });
    this.texts.set(uri.toString(), text);
    return uri;
  }

  async showDiff(title: string, before: string, after: string, preview = false): Promise<void> {
    const left = this.put('before', before);
    const right = this.put('after', after);
    await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview });
  }

  dispose(): void {
    this.closing.dispose();
    this.texts.clear();
  }
}
