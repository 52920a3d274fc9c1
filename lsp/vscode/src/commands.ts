// The workbench commands of the command palette: apply a pass or pipeline, apply a schedule
// step, browse a pipeline's per-pass snapshots. Each asks workbench-lsp (workbench_requests.ts)
// and shows the module before and after in a diff tab; applying to the file is a second,
// explicit choice, since the result is the canonical printing of the whole module.
import * as vscode from 'vscode';
import {
  RequestSender,
  applySchedule,
  enclosingFunction,
  passChoices,
  passSnapshots,
} from './workbench_requests';
import { finalModule, passItems, pipelineFailure, recipeFromInput, scheduleFailure, snapshotTitle } from './command_text';
import { ResultDocuments } from './result_documents';

export const LANGUAGE_ID = 'tvmscript';

export interface CommandEnvironment {
  // The running client, started on demand; undefined (the user told why) when it cannot start.
  client(): Promise<RequestSender | undefined>;
  results: ResultDocuments;
  output: vscode.OutputChannel;
  state: vscode.Memento;
}

const LAST_RECIPE = 'workbench.lastScheduleStep';
const REPLACE = "Replace the file's text";

function activeTvmScriptEditor(): vscode.TextEditor | undefined {
  const editor = vscode.window.activeTextEditor;
  if (editor?.document.languageId === LANGUAGE_ID) return editor;
  void vscode.window.showWarningMessage(
    'TVMScript: open a TVMScript file first (a Python file with @T.prim_func, @R.function or @I.ir_module, or switch its language to TVMScript).',
  );
  return undefined;
}

// Offers to write `text` into the document, unless it changed since the result was computed.
async function offerReplace(doc: vscode.TextDocument, version: number, text: string, what: string): Promise<void> {
  const choice = await vscode.window.showInformationMessage(`TVMScript: ${what}.`, REPLACE);
  if (choice !== REPLACE) return;
  if (doc.isClosed || doc.version !== version) {
    void vscode.window.showWarningMessage('TVMScript: the file changed since; run the command again.');
    return;
  }
  const edit = new vscode.WorkspaceEdit();
  edit.replace(doc.uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), text);
  await vscode.workspace.applyEdit(edit);
}

function failed(err: unknown): void {
  void vscode.window.showErrorMessage(`TVMScript: the server refused the request: ${err instanceof Error ? err.message : String(err)}`);
}

async function applyPass(env: CommandEnvironment): Promise<void> {
  const editor = activeTvmScriptEditor();
  const client = editor && (await env.client());
  if (!editor || !client) return;
  const doc = editor.document;
  const uri = doc.uri.toString();
  try {
    const choices = await passChoices(client, uri);
    if (choices.length === 0) {
      void vscode.window.showWarningMessage('TVMScript: the file does not parse; fix its errors before running a pass.');
      return;
    }
    const picked = await vscode.window.showQuickPick(
      choices.map((c) => ({ label: c.name, description: c.isPipeline ? 'pipeline' : 'pass', choice: c })),
      { title: 'TVMScript: apply a pass or pipeline', matchOnDescription: true },
    );
    if (!picked) return;
    const version = doc.version;
    const result = await passSnapshots(client, uri, picked.choice.name);
    const module = finalModule(result);
    if (!module) {
      void vscode.window.showErrorMessage(pipelineFailure(result));
      return;
    }
    await env.results.showDiff(`${picked.choice.name}: before ↔ after`, module.before, module.after);
    await offerReplace(doc, version, module.after, `${picked.choice.name} ran (${result.passes.length} passes)`);
  } catch (err) {
    failed(err);
  }
}

async function applyScheduleStep(env: CommandEnvironment, given?: string): Promise<void> {
  const editor = activeTvmScriptEditor();
  const client = editor && (await env.client());
  if (!editor || !client) return;
  const doc = editor.document;
  const uri = doc.uri.toString();
  try {
    const position = editor.selection.active;
    const func = await enclosingFunction(client, uri, { line: position.line, character: position.character });
    const recipe =
      given ??
      (await vscode.window.showInputBox({
        title: `TVMScript: schedule step on ${func ?? 'the module\u2019s PrimFunc'}`,
        prompt: "A recipe in TVM's trace syntax; separate several steps with ';'",
        placeHolder: 'b0 = sch.get_sblock(name="C"); l1, l2, l3 = sch.get_loops(block=b0); l4, l5 = sch.split(loop=l1, factors=[None, 32])',
        value: env.state.get<string>(LAST_RECIPE, ''),
      }));
    if (!recipe) return;
    await env.state.update(LAST_RECIPE, recipe);
    const lines = recipeFromInput(recipe);
    const version = doc.version;
    const result = await applySchedule(client, uri, lines, func);
    if (!result.ok) {
      void vscode.window.showErrorMessage(scheduleFailure(result.error, lines));
      return;
    }
    env.output.appendLine(`Schedule trace on ${func ?? 'the default PrimFunc'}:\n${result.trace}`);
    await env.results.showDiff(`Schedule step on ${func ?? 'PrimFunc'}: before ↔ after`, doc.getText(), result.text);
    await offerReplace(doc, version, result.text, 'the schedule step applies (its trace is in the output panel)');
  } catch (err) {
    failed(err);
  }
}

async function showPassSnapshots(env: CommandEnvironment): Promise<void> {
  const editor = activeTvmScriptEditor();
  const client = editor && (await env.client());
  if (!editor || !client) return;
  const uri = editor.document.uri.toString();
  try {
    const pipelines = (await passChoices(client, uri)).filter((c) => c.isPipeline);
    const picked = await vscode.window.showQuickPick(
      [{ label: 'default', description: "the server's default pipeline", name: undefined as string | undefined }].concat(
        pipelines.map((c) => ({ label: c.name, description: 'pipeline', name: c.name as string | undefined })),
      ),
      { title: 'TVMScript: pass snapshots of which pipeline?' },
    );
    if (!picked) return;
    const result = await passSnapshots(client, uri, picked.name);
    if (!result.ok) void vscode.window.showErrorMessage(pipelineFailure(result));
    if (result.passes.length === 0) return;
    // The pick stays open so that one pass after another can be looked at.
    const pick = vscode.window.createQuickPick<ReturnType<typeof passItems>[number] & vscode.QuickPickItem>();
    pick.title = `TVMScript: ${result.pipeline}, ${result.passes.length} passes (Enter shows one; Escape closes)`;
    pick.items = passItems(result);
    pick.ignoreFocusOut = true;
    pick.matchOnDetail = true;
    pick.onDidAccept(async () => {
      const item = pick.selectedItems[0];
      if (item) await env.results.showDiff(snapshotTitle(result, item.snapshot), item.snapshot.before, item.snapshot.after, true);
    });
    pick.onDidHide(() => pick.dispose());
    pick.show();
  } catch (err) {
    failed(err);
  }
}

export function registerCommands(env: CommandEnvironment): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('workbench.applyPass', () => applyPass(env)),
    vscode.commands.registerCommand('workbench.applyScheduleStep', (recipe?: string) =>
      applyScheduleStep(env, typeof recipe === 'string' ? recipe : undefined),
    ),
    vscode.commands.registerCommand('workbench.showPassSnapshots', () => showPassSnapshots(env)),
  ];
}
