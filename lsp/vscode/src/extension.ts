// The VS Code client of workbench-lsp. VS Code gives `.py` files to Python; this extension moves
// the ones that hold TVMScript into the `tvmscript` language (a decorator in the first lines,
// a glob of `workbench.tvmscriptFiles`, or the user's "TVMScript: Use for this file"), starts
// the server when the first such document opens, and never for plain Python. A file the user
// switches back to Python stays Python in this workspace. All language features are the
// server's; the workbench commands are commands.ts's.
import * as vscode from 'vscode';
import { LanguageClient, LanguageClientOptions, ServerOptions, TransportKind } from 'vscode-languageclient/node';
import { LANGUAGE_ID, registerCommands } from './commands';
import { isTvmScriptText } from './detect';
import { ResultDocuments, RESULT_SCHEME } from './result_documents';
import { SERVER_SETTING, resolveServer, serverNotFoundMessage } from './server_path';
import { RequestSender, initializationOptions } from './workbench_requests';

const PYTHON_OVERRIDES = 'workbench.pythonFiles'; // workspace state: URIs the user keeps as Python

let client: LanguageClient | undefined;
let starting: Promise<LanguageClient | undefined> | undefined;
let output: vscode.OutputChannel;
let state: vscode.Memento;
// The documents this extension moved to TVMScript, and when each was last closed: VS Code
// closes and reopens a document whose language changes, so a claimed document that reopens as
// Python at once is one the user switched back.
const claimed = new Set<string>();
const closedAt = new Map<string, number>();
const SWITCH_WINDOW_MS = 2000;

function config(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration('workbench');
}

function pythonOverrides(): string[] {
  return state.get<string[]>(PYTHON_OVERRIDES, []);
}

async function setPythonOverride(uri: string, keepPython: boolean): Promise<void> {
  const rest = pythonOverrides().filter((u) => u !== uri);
  await state.update(PYTHON_OVERRIDES, keepPython ? rest.concat(uri) : rest);
}

async function startClient(): Promise<LanguageClient | undefined> {
  const configured = config().get<string>('lspPath', 'workbench-lsp');
  const server = resolveServer(configured, {
    workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
    env: process.env,
    platform: process.platform,
  });
  if (!server) {
    const choice = await vscode.window.showErrorMessage(serverNotFoundMessage(configured), 'Open the setting');
    if (choice) await vscode.commands.executeCommand('workbench.action.openSettings', SERVER_SETTING);
    return undefined;
  }
  // TransportKind.stdio makes the client pass --stdio, which the server accepts.
  const serverOptions: ServerOptions = {
    run: { command: server, transport: TransportKind.stdio },
    debug: { command: server, transport: TransportKind.stdio },
  };
  const clientOptions: LanguageClientOptions = {
    // Files and unsaved buffers; not the commands' result tabs (a module between two passes
    // need not verify, and its diagnostics would only be noise).
    documentSelector: [
      { language: LANGUAGE_ID, scheme: 'file' },
      { language: LANGUAGE_ID, scheme: 'untitled' },
    ],
    initializationOptions: initializationOptions(config().get<number>('diagnosticsDelayMs', 150)),
    outputChannel: output,
  };
  const c = new LanguageClient('workbench', 'TVMScript (workbench-lsp)', serverOptions, clientOptions);
  try {
    await c.start();
    output.appendLine(`workbench-lsp started: ${server}`);
    return c;
  } catch (err) {
    void vscode.window.showErrorMessage(`TVMScript: workbench-lsp (${server}) failed to start: ${String(err)}`);
    return undefined;
  }
}

// The running client, started once; a failed start is retried on the next call (after the user
// fixed the setting, say).
function ensureClient(): Promise<LanguageClient | undefined> {
  if (client) return Promise.resolve(client);
  starting ??= startClient().then((c) => {
    client = c;
    starting = undefined;
    return c;
  });
  return starting;
}

async function stopClient(): Promise<void> {
  const c = client ?? (await starting);
  client = undefined;
  if (c) await c.stop();
}

function matchesConfiguredGlobs(doc: vscode.TextDocument): boolean {
  const globs = config().get<string[]>('tvmscriptFiles', ['**/*.tvmscript.py']);
  return globs.some((pattern) => vscode.languages.match({ pattern }, doc) > 0);
}

async function onOpen(doc: vscode.TextDocument): Promise<void> {
  const uri = doc.uri.toString();
  if (doc.languageId === LANGUAGE_ID) {
    if (doc.uri.scheme !== RESULT_SCHEME) void ensureClient();
    return;
  }
  if (doc.languageId !== 'python' || (doc.uri.scheme !== 'file' && doc.uri.scheme !== 'untitled')) return;
  const closed = closedAt.get(uri);
  if (claimed.has(uri) && closed !== undefined && Date.now() - closed < SWITCH_WINDOW_MS) {
    claimed.delete(uri);
    await setPythonOverride(uri, true);
    output.appendLine(`${uri}: kept as Python in this workspace ("TVMScript: Use for this file" undoes it)`);
    return;
  }
  if (pythonOverrides().includes(uri)) return;
  if (matchesConfiguredGlobs(doc) || isTvmScriptText(doc.getText(), config().get<number>('detectFirstLines', 100))) {
    claimed.add(uri);
    await vscode.languages.setTextDocumentLanguage(doc, LANGUAGE_ID);
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('TVMScript (workbench-lsp)');
  state = context.workspaceState;
  const results = new ResultDocuments();
  const sender = async (): Promise<RequestSender | undefined> => ensureClient();
  context.subscriptions.push(
    output,
    results,
    vscode.workspace.registerTextDocumentContentProvider(RESULT_SCHEME, results),
    ...registerCommands({ client: sender, results, output, state }),
    vscode.commands.registerCommand('workbench.useTvmScriptForFile', async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor) {
        void vscode.window.showWarningMessage('TVMScript: open the file to use TVMScript for first.');
        return;
      }
      const uri = editor.document.uri.toString();
      await setPythonOverride(uri, false);
      claimed.add(uri);
      await vscode.languages.setTextDocumentLanguage(editor.document, LANGUAGE_ID);
    }),
    vscode.commands.registerCommand('workbench.restartServer', async () => {
      await stopClient();
      await ensureClient();
    }),
    vscode.workspace.onDidOpenTextDocument((doc) => onOpen(doc)),
    vscode.workspace.onDidCloseTextDocument((doc) => {
      if (doc.languageId === LANGUAGE_ID) closedAt.set(doc.uri.toString(), Date.now());
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration(SERVER_SETTING) || e.affectsConfiguration('workbench.diagnosticsDelayMs')) {
        await stopClient();
        if (vscode.workspace.textDocuments.some((d) => d.languageId === LANGUAGE_ID)) await ensureClient();
      }
      if (e.affectsConfiguration('workbench.tvmscriptFiles') || e.affectsConfiguration('workbench.detectFirstLines')) {
        for (const doc of vscode.workspace.textDocuments) await onOpen(doc);
      }
    }),
  );
  for (const doc of vscode.workspace.textDocuments) await onOpen(doc);
}

export function deactivate(): Promise<void> | undefined {
  return client || starting ? stopClient() : undefined;
}
