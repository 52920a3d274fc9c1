// The workbench's own requests to workbench-lsp (lsp/code_actions.cpp), typed, over anything
// that sends LSP requests: the extension's LanguageClient, or in the Node test a plain
// vscode-languageserver-protocol connection to the same binary. No `vscode` import.

export interface RequestSender {
  sendRequest<R>(method: string, params: unknown): Promise<R>;
}

export interface Position {
  line: number;
  character: number;
}

export interface PassSnapshot {
  index: number;
  name: string;
  milliseconds: number;
  changed: boolean;
  before: string;
  after: string; // empty when the pass failed
}

export interface PassSnapshotsResult {
  ok: boolean;
  pipeline: string;
  error?: string;
  passes: PassSnapshot[];
}

export interface ScheduleError {
  message: string;
  line?: number; // 0-based, in the recipe
  character?: number;
}

export type ApplyScheduleResult =
  | { ok: true; text: string; trace: string }
  | { ok: false; error: ScheduleError };

export interface PassChoice {
  name: string; // what workbench/passSnapshots takes as `pipeline`
  title: string; // "Run pipeline NAME" or "Apply pass NAME", as the server words it
  isPipeline: boolean;
}

// What the client tells the server in `initialize`: the debounce of its diagnostics.
export function initializationOptions(diagnosticsDelayMs: number): { diagnosticsDelayMs: number } {
  return { diagnosticsDelayMs };
}

// Runs `pipeline` (a pipeline's or a pass's name, or pass list text; the server's default
// pipeline when undefined) and returns the module before and after each pass.
export function passSnapshots(
  client: RequestSender,
  uri: string,
  pipeline?: string,
): Promise<PassSnapshotsResult> {
  const params: { textDocument: { uri: string }; pipeline?: string } = { textDocument: { uri } };
  if (pipeline !== undefined) params.pipeline = pipeline;
  return client.sendRequest<PassSnapshotsResult>('workbench/passSnapshots', params);
}

// Replays a schedule recipe (TVM's trace syntax) on `funcName` (the server's default when
// empty) and returns the document's text after it, or the recipe error.
export function applySchedule(
  client: RequestSender,
  uri: string,
  recipe: string,
  funcName?: string,
): Promise<ApplyScheduleResult> {
  return client.sendRequest<ApplyScheduleResult>('workbench/applySchedule', {
    textDocument: { uri },
    recipe,
    funcName: funcName ?? '',
  });
}

interface CodeAction {
  title: string;
  kind?: string;
  data?: { pipeline?: string };
}

// The pipelines and passes the server offers for this document: its `source.workbench.pass`
// code actions (the server's registry, so the list cannot drift from what it runs). Empty while
// the document does not parse.
export async function passChoices(client: RequestSender, uri: string): Promise<PassChoice[]> {
  const start: Position = { line: 0, character: 0 };
  const actions = await client.sendRequest<CodeAction[] | null>('textDocument/codeAction', {
    textDocument: { uri },
    range: { start, end: start },
    context: { diagnostics: [], only: ['source.workbench.pass'] },
  });
  const out: PassChoice[] = [];
  for (const a of actions ?? []) {
    const name = a.data?.pipeline;
    if (a.kind !== 'source.workbench.pass' || !name) continue;
    out.push({ name, title: a.title, isPipeline: a.title.startsWith('Run pipeline ') });
  }
  return out;
}

interface DocumentSymbol {
  name: string;
  kind: number;
  range: { start: Position; end: Position };
  children?: DocumentSymbol[];
}

const SYMBOL_FUNCTION = 12; // LSP SymbolKind.Function

function contains(range: { start: Position; end: Position }, p: Position): boolean {
  const before = (a: Position, b: Position) => a.line < b.line || (a.line === b.line && a.character <= b.character);
  return before(range.start, p) && before(p, range.end);
}

// The name of the function around `position` (document symbols: module > functions > ...), so a
// schedule step applies to the PrimFunc the cursor is in; undefined outside any function.
export async function enclosingFunction(
  client: RequestSender,
  uri: string,
  position: Position,
): Promise<string | undefined> {
  const symbols = await client.sendRequest<DocumentSymbol[] | null>('textDocument/documentSymbol', {
    textDocument: { uri },
  });
  let found: string | undefined;
  const visit = (list: DocumentSymbol[]) => {
    for (const s of list) {
      if (!contains(s.range, position)) continue;
      if (s.kind === SYMBOL_FUNCTION) found = s.name;
      visit(s.children ?? []);
    }
  };
  visit(symbols ?? []);
  return found;
}
