// The VS Code client of workbench-lsp: starts the server over stdio for documents in the
// `tvmscript` language, and moves Python files that match `workbench.tvmscriptFiles` (or that
// the user picks with "TVMScript: Use for this file") into that language. All language
// features live in the server; this file only wires VS Code to it.
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  TransportKind,
} from 'vscode-languageclient/node';

const LANGUAGE_ID = 'tvmscript';
let client: LanguageClient | undefined;
let output: vscode.OutputChannel | undefined;

function config(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration('workbench');
}

// Resolves the configured server path: a path with a separator must exist as given (relative
// paths are taken from the first workspace folder); a bare name is looked up on PATH. Returns
// undefined when nothing is found, so that the user gets our message instead of a spawn error.
function resolveServer(configured: string): string | undefined {
  const isExecutable = (p: string): boolean => {
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return fs.statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (configured.includes('/') || configured.includes('\\')) {
    let p = configured.replace(/^~(?=$|[\\/])/, process.env.HOME ?? '~');
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!path.isAbsolute(p) && folder) p = path.join(folder.uri.fsPath, p);
    return isExecutable(p) ? p : undefined;
  }
  const exts = process.platform === 'win32' ? ['.exe', ''] : [''];
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = path.join(dir, configured + ext);
      if (isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}

async function startClient(): Promise<void> {
  const configured = config().get<string>('lspPath', 'workbench-lsp');
  const server = resolveServer(configured);
  if (!server) {
    const choice = await vscode.window.showErrorMessage(
      `TVMScript: the language server '${configured}' was not found. ` +
        'Build it (cmake --build build/release --target workbench-lsp) and set workbench.lspPath.',
      'Open settings',
    );
    if (choice === 'Open settings') {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'workbench.lspPath');
    }
    return;
  }
  // TransportKind.stdio makes the client pass --stdio, which the server accepts and ignores.
  const serverOptions: ServerOptions = {
    run: { command: server, transport: TransportKind.stdio },
    debug: { command: server, transport: TransportKind.stdio },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ language: LANGUAGE_ID }],
    // The server reads this in `initialize` (the same knob as --diagnostics-delay-ms).
    initializationOptions: {
      diagnosticsDelayMs: config().get<number>('diagnosticsDelayMs', 150),
    },
    outputChannel: output,
  };
  client = new LanguageClient('workbench', 'TVMScript (workbench-lsp)', serverOptions, clientOptions);
  try {
    await client.start();
  } catch (err) {
    client = undefined;
    vscode.window.showErrorMessage(`TVMScript: workbench-lsp failed to start: ${String(err)}`);
  }
}

async function stopClient(): Promise<void> {
  const c = client;
  client = undefined;
  if (c) await c.stop();
}

// Python files matching one of the configured globs are TVMScript. `languages.match` with a
// `pattern` filter is VS Code's own glob matcher, so the setting behaves like files.associations.
function matchesConfiguredGlobs(doc: vscode.TextDocument): boolean {
  if (doc.uri.scheme !== 'file' && doc.uri.scheme !== 'untitled') return false;
  const globs = config().get<string[]>('tvmscriptFiles', ['**/*.tvmscript.py']);
  return globs.some((pattern) => vscode.languages.match({ pattern }, doc) > 0);
}

async function claimIfConfigured(doc: vscode.TextDocument): Promise<void> {
  if (doc.languageId === 'python' && matchesConfiguredGlobs(doc)) {
    await vscode.languages.setTextDocumentLanguage(doc, LANGUAGE_ID);
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('TVMScript (workbench-lsp)');
  context.subscriptions.push(output);

  context.subscriptions.push(
    vscode.commands.registerCommand('workbench.useTvmScriptForFile', async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor) {
        vscode.window.showWarningMessage('TVMScript: open the file to use TVMScript for first.');
        return;
      }
      await vscode.languages.setTextDocumentLanguage(editor.document, LANGUAGE_ID);
    }),
    vscode.commands.registerCommand('workbench.restartServer', async () => {
      await stopClient();
      await startClient();
    }),
    vscode.workspace.onDidOpenTextDocument((doc) => claimIfConfigured(doc)),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('workbench.lspPath') || e.affectsConfiguration('workbench.diagnosticsDelayMs')) {
        await stopClient();
        await startClient();
      }
      if (e.affectsConfiguration('workbench.tvmscriptFiles')) {
        for (const doc of vscode.workspace.textDocuments) await claimIfConfigured(doc);
      }
    }),
  );

  for (const doc of vscode.workspace.textDocuments) await claimIfConfigured(doc);
  await startClient();
}

export function deactivate(): Promise<void> | undefined {
  return client ? stopClient() : undefined;
}
