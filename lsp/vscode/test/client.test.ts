// The extension's client code against the real workbench-lsp (WB_LSP_BIN, set by CTest), under
// plain Node: the server found and started as the extension does it, the workbench requests
// and the text the commands make of their answers, TVMScript detection, and the TextMate
// grammar over VS Code's Python grammar. The VS Code glue itself (extension.ts, commands.ts)
// needs a VS Code to run in.
import assert from 'node:assert/strict';
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  ProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  createProtocolConnection,
} from 'vscode-languageserver-protocol/node';
import * as oniguruma from 'vscode-oniguruma';
import * as textmate from 'vscode-textmate';
import {
  finalModule,
  passItems,
  pipelineFailure,
  recipeFromInput,
  scheduleFailure,
  snapshotTitle,
} from '../src/command_text';
import { isTvmScriptText } from '../src/detect';
import { SERVER_SETTING, resolveServer, serverNotFoundMessage } from '../src/server_path';
import {
  RequestSender,
  applySchedule,
  enclosingFunction,
  initializationOptions,
  passChoices,
  passSnapshots,
} from '../src/workbench_requests';

const extensionDir = path.resolve(__dirname, '..', '..');
const repoRoot = path.resolve(extensionDir, '..', '..');
const examples = path.join(repoRoot, 'resources', 'examples');
const matmul = fs.readFileSync(path.join(examples, 'matmul.py'), 'utf8');

function positionOf(text: string, needle: string): { line: number; character: number } {
  const at = text.indexOf(needle);
  assert.ok(at >= 0, `'${needle}' is in the text`);
  const lines = text.slice(0, at).split('\n');
  return { line: lines.length - 1, character: lines[lines.length - 1].length };
}

describe('TVMScript detection', () => {
  test('a decorator in the first lines makes a file TVMScript', () => {
    // matmul.py: three comment lines, a blank one, then @I.ir_module on line 5.
    assert.equal(isTvmScriptText(matmul, 100), true);
    assert.equal(isTvmScriptText(matmul, 5), true);
    assert.equal(isTvmScriptText(matmul, 4), false);
    assert.equal(isTvmScriptText(matmul, 0), false);
  });

  test('each of the three decorators, and not a comment or plain Python', () => {
    assert.equal(isTvmScriptText('import tvm\n\n  @T.prim_func(private=True)\n  def f(): pass\n', 10), true);
    assert.equal(isTvmScriptText('@R.function\ndef main(x: R.Tensor((4,), "float32")): return x\n', 10), true);
    assert.equal(isTvmScriptText('@I.ir_module\nclass Module: pass\n', 1), true);
    assert.equal(isTvmScriptText('# @T.prim_func\ndef f(): pass\n', 10), false);
    assert.equal(isTvmScriptText('import numpy as np\n@functools.cache\ndef T(): pass\n', 10), false);
    assert.equal(isTvmScriptText('x = "@T.prim_func"\n', 10), false);
    assert.equal(isTvmScriptText('', 10), false);
  });
});

describe('finding the server binary', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-vscode-'));
    fs.mkdirSync(path.join(dir, 'bin'));
    fs.writeFileSync(path.join(dir, 'bin', 'workbench-lsp'), '#!/bin/sh\n', { mode: 0o755 });
    fs.writeFileSync(path.join(dir, 'bin', 'not-executable'), '', { mode: 0o644 });
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('a bare name on PATH, a relative path from the workspace folder, ~ from HOME', () => {
    const bin = path.join(dir, 'bin');
    const lookup = { env: { PATH: `/nonexistent${path.delimiter}${bin}`, HOME: dir }, platform: 'linux' as const };
    assert.equal(resolveServer('workbench-lsp', lookup), path.join(bin, 'workbench-lsp'));
    assert.equal(resolveServer('bin/workbench-lsp', { ...lookup, workspaceFolder: dir }), path.join(bin, 'workbench-lsp'));
    assert.equal(resolveServer('~/bin/workbench-lsp', lookup), path.join(bin, 'workbench-lsp'));
  });

  test('nothing found is undefined, and the message names the setting', () => {
    const lookup = { env: { PATH: path.join(dir, 'bin') }, platform: 'linux' as const, workspaceFolder: dir };
    assert.equal(resolveServer('not-executable', lookup), undefined);
    assert.equal(resolveServer('missing-lsp', lookup), undefined);
    assert.equal(resolveServer('bin', lookup), undefined); // a directory
    assert.equal(resolveServer('build/release/lsp/workbench-lsp', lookup), undefined);
    const message = serverNotFoundMessage('missing-lsp');
    assert.match(message, /'missing-lsp' was not found/);
    assert.ok(message.includes(SERVER_SETTING), message);
  });
});

describe('the workbench requests against workbench-lsp', () => {
  let server: ChildProcess;
  let connection: ProtocolConnection;
  let client: RequestSender;
  const uri = 'file:///work/matmul.py';

  before(async () => {
    const configured = process.env.WB_LSP_BIN ?? path.join(repoRoot, 'build', 'release', 'lsp', 'workbench-lsp');
    const binary = resolveServer(configured, { env: process.env, platform: process.platform });
    assert.ok(binary, `${configured} is not an executable: build workbench-lsp or set WB_LSP_BIN`);
    // As vscode-languageclient's stdio transport starts it.
    server = spawn(binary, ['--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
    assert.ok(server.stdout && server.stdin);
    connection = createProtocolConnection(new StreamMessageReader(server.stdout), new StreamMessageWriter(server.stdin));
    connection.listen();
    client = connection;
    const init = await connection.sendRequest<{ capabilities: { semanticTokensProvider?: unknown } }>('initialize', {
      processId: process.pid,
      rootUri: null,
      capabilities: { textDocument: { codeAction: { resolveSupport: { properties: ['edit'] } } } },
      initializationOptions: initializationOptions(0),
    });
    assert.ok(init.capabilities.semanticTokensProvider, 'the server offers semantic tokens');
    await connection.sendNotification('initialized', {});
    await connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: 'tvmscript', version: 1, text: matmul },
    });
  });

  after(async () => {
    await connection.sendRequest('shutdown');
    await connection.sendNotification('exit');
    const code = await new Promise<number | null>((resolve) => server.once('exit', resolve));
    connection.dispose();
    assert.equal(code, 0);
  });

  test('the pass choices are the server registry, pipelines first', async () => {
    const choices = await passChoices(client, uri);
    const names = choices.map((c) => c.name);
    assert.ok(names.includes('zero_pipeline'), names.join(', '));
    assert.ok(names.includes('LowerInitBlock'), names.join(', '));
    assert.ok(!names.some((n) => n.startsWith('Testing')), 'the failing Testing* passes are not offered');
    const firstPass = choices.findIndex((c) => !c.isPipeline);
    assert.ok(firstPass > 0 && choices.slice(firstPass).every((c) => !c.isPipeline));
    assert.equal(choices.find((c) => c.name === 'zero_pipeline')?.title, 'Run pipeline zero_pipeline');
  });

  test('pass snapshots of the default pipeline, as the command lists them', async () => {
    const result = await passSnapshots(client, uri);
    assert.equal(result.ok, true, result.error);
    assert.ok(result.passes.length >= 2);
    const items = passItems(result);
    assert.equal(items[0].label, `1. ${result.passes[0].name}`);
    assert.match(items[0].description, /^\d+\.\d\d ms$/);
    // LowerInitBlock rewrites matmul's T.init() block: that pass changed the module.
    const lower = items.find((i) => i.snapshot.name === 'LowerInitBlock');
    assert.ok(lower, items.map((i) => i.label).join(', '));
    assert.equal(lower.detail, 'changed the module');
    assert.ok(lower.snapshot.before.includes('T.init()') && !lower.snapshot.after.includes('T.init()'));
    assert.match(snapshotTitle(result, lower.snapshot), new RegExp(`^LowerInitBlock \\(\\d+ of ${result.passes.length} in `));
    const module = finalModule(result);
    assert.ok(module);
    assert.equal(module.before, result.passes[0].before);
    assert.equal(module.after, result.passes[result.passes.length - 1].after);
  });

  test('one pass applied, and a pipeline that does not exist', async () => {
    const result = await passSnapshots(client, uri, 'LowerInitBlock');
    assert.equal(result.ok, true, result.error);
    assert.deepEqual(result.passes.map((p) => p.name), ['LowerInitBlock']);
    const bad = await passSnapshots(client, uri, 'NoSuchPass');
    assert.equal(bad.ok, false);
    assert.equal(finalModule(bad), undefined);
    const message = pipelineFailure(bad);
    assert.ok(message.startsWith('TVMScript: NoSuchPass failed'), message);
    assert.ok(message.includes('NoSuchPass'), message);
  });

  test('a schedule step typed on one line applies to the function at the cursor', async () => {
    const func = await enclosingFunction(client, uri, positionOf(matmul, 'for i, j, k'));
    assert.equal(func, 'main');
    assert.equal(await enclosingFunction(client, uri, { line: 0, character: 0 }), undefined);
    const recipe = recipeFromInput(
      'b0 = sch.get_sblock(name="C");  l1, l2, l3 = sch.get_loops(block=b0); l4, l5 = sch.split(loop=l1, factors=[None, 32]);',
    );
    assert.equal(recipe.split('\n').length, 3);
    const result = await applySchedule(client, uri, recipe, func);
    assert.ok(result.ok, JSON.stringify(result));
    assert.match(result.text, /for i_0, i_1, j, k in T\.grid\(8, 32, 256, 256\)/);
    assert.match(result.trace, /l4, l5 = sch\.split\(loop=l1, factors=\[None, 32\]/);
  });

  test('the recipe file of the examples applies', async () => {
    const recipe = fs.readFileSync(path.join(examples, 'recipes', 'matmul_tile.py'), 'utf8');
    const result = await applySchedule(client, uri, recipe);
    assert.ok(result.ok, JSON.stringify(result));
    assert.notEqual(result.text, matmul);
    assert.match(result.text, /T\.parallel|T\.vectorized/);
  });

  test('a schedule step that does not apply says where in the recipe', async () => {
    const recipe = recipeFromInput('b0 = sch.get_sblock(name="C"); b1 = sch.get_sblock(name="NoSuchBlock")');
    const result = await applySchedule(client, uri, recipe, 'main');
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.equal(result.error.line, 1, JSON.stringify(result.error));
    const message = scheduleFailure(result.error, recipe);
    assert.ok(message.includes('recipe line 2'), message);
    assert.ok(message.includes('NoSuchBlock'), message);
  });

  test('nothing to run while the file does not parse', async () => {
    const broken = 'file:///work/broken.py';
    await connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri: broken, languageId: 'tvmscript', version: 1, text: '@T.prim_func\ndef f(:\n' },
    });
    assert.deepEqual(await passChoices(client, broken), []);
  });
});

describe('the TextMate grammar', () => {
  let grammar: textmate.IGrammar;

  before(async () => {
    const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
    await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
    const files: Record<string, string> = {
      'source.python.tvmscript': path.join(extensionDir, 'syntaxes', 'tvmscript.tmLanguage.json'),
      // The Python grammar VS Code ships (MagicPython), as packaged in tm-grammars.
      'source.python': require.resolve('tm-grammars/grammars/python.json'),
    };
    const registry = new textmate.Registry({
      onigLib: Promise.resolve({
        createOnigScanner: (patterns: string[]) => new oniguruma.OnigScanner(patterns),
        createOnigString: (s: string) => new oniguruma.OnigString(s),
      }),
      loadGrammar: async (scope: string) =>
        files[scope] ? textmate.parseRawGrammar(fs.readFileSync(files[scope], 'utf8'), files[scope]) : null,
    });
    const loaded = await registry.loadGrammar('source.python.tvmscript');
    assert.ok(loaded);
    grammar = loaded;
  });

  // The scopes of each token of `text`'s lines, as "token -> scope list".
  function tokens(text: string): { text: string; scopes: string[] }[] {
    let stack = textmate.INITIAL;
    const out: { text: string; scopes: string[] }[] = [];
    for (const line of text.split('\n')) {
      const r = grammar.tokenizeLine(line, stack);
      for (const t of r.tokens) out.push({ text: line.slice(t.startIndex, t.endIndex), scopes: t.scopes });
      stack = r.ruleStack;
    }
    return out;
  }

  function scopesOf(all: { text: string; scopes: string[] }[], text: string, nth = 0): string[] {
    const found = all.filter((t) => t.text === text);
    assert.ok(found.length > nth, `a token '${text}' (tokens: ${all.map((t) => t.text).join('|')})`);
    return found[nth].scopes;
  }

  test('T., R. and I. members inside Python, dtype strings, Python left as it is', () => {
    const all = tokens(matmul);
    assert.equal(all[0].scopes[0], 'source.python.tvmscript');
    // `# from tvm.script import tirx as T`: comments are left to Python.
    assert.ok(all[0].scopes.some((s) => s.startsWith('comment.line')));
    assert.ok(!all.slice(0, 8).some((t) => t.scopes.includes('entity.name.namespace.tvmscript')));

    const decorator = tokens('@I.ir_module\nclass Module:\n    @T.prim_func(s_tir=True)\n    def f(): pass\n');
    assert.ok(scopesOf(decorator, 'I').includes('entity.name.namespace.tvmscript'));
    assert.ok(scopesOf(decorator, 'ir_module').includes('support.function.tvmscript'));
    assert.ok(scopesOf(decorator, 'prim_func').includes('support.function.tvmscript'));

    // Inside the parameter list of a def (a Python begin/end rule): the injection still applies.
    const buffer = scopesOf(all, 'Buffer');
    assert.ok(buffer.includes('support.class.tvmscript'), buffer.join(' '));
    assert.ok(buffer.some((s) => s.endsWith('.python') && s !== 'source.python'), buffer.join(' '));
    const dtype = scopesOf(all, 'float32');
    assert.ok(dtype.includes('support.type.dtype.tvmscript'), dtype.join(' '));
    assert.ok(dtype.includes('string.quoted.tvmscript'), dtype.join(' '));

    // `T.sblock("C")`: a string that is not a dtype stays Python's string.
    const block = scopesOf(tokens('        with T.sblock("C"):'), 'C');
    assert.ok(block.some((s) => s.startsWith('string.quoted') && s.endsWith('.python')), block.join(' '));
    assert.ok(!block.includes('support.type.dtype.tvmscript'));
    assert.ok(scopesOf(all, 'sblock').includes('support.function.tvmscript'));
    assert.ok(scopesOf(all, 'for').some((s) => s.startsWith('keyword.control.flow')));
  });

  test('the dtypes DataType::Parse reads, and strings that only look like them', () => {
    const isDtype = (literal: string) =>
      tokens(`x = ${literal}`).some((t) => t.scopes.includes('support.type.dtype.tvmscript'));
    for (const d of ['"float32"', "'int8'", '"uint1"', '"bfloat16"', '"float16x4"', '"float8_e4m3fn"', '"bool"', '"handle"', '"float32xvscalex4"']) {
      assert.ok(isDtype(d), d);
    }
    for (const s of ['"float8"', '"floating"', '"int32 "', '"float32\'', '"global"', 'f"float32"']) {
      assert.ok(!isDtype(s), s);
    }
  });
});

describe('the manifest', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(extensionDir, 'package.json'), 'utf8'));
  const compiled = ['extension.js', 'commands.js'].map((f) => fs.readFileSync(path.join(__dirname, '..', 'src', f), 'utf8')).join('\n');

  test('every contributed command is registered, and nothing activates on other languages', () => {
    for (const c of manifest.contributes.commands) assert.ok(compiled.includes(`'${c.command}'`), c.command);
    assert.deepEqual(manifest.activationEvents, ['onLanguage:tvmscript', 'onLanguage:python']);
    assert.equal(manifest.contributes.grammars[0].language, 'tvmscript');
    assert.ok(fs.existsSync(path.join(extensionDir, manifest.contributes.grammars[0].path)));
    assert.ok(fs.existsSync(path.join(extensionDir, manifest.main)), `${manifest.main} is built`);
    assert.ok(SERVER_SETTING in manifest.contributes.configuration.properties);
  });
});
