// Which Python files hold TVMScript. VS Code gives every `.py` file to Python by its extension
// (a language's `firstLine` only counts for files no extension claims), so the extension looks
// at the text itself: a TVMScript module or function is introduced by one of TVM's decorators.
// No `vscode` import: the Node test runs this as is.

// `@T.prim_func`, `@T.prim_func(private=True)`, `@R.function`, `@I.ir_module`, at the start of a
// line (a commented-out one does not count).
const DECORATOR = /^[ \t]*@(?:T\.prim_func|R\.function|I\.ir_module)\b/;

// Whether one of the first `firstLines` lines of `text` is a TVMScript decorator; 0 lines never
// detects (the user's way to turn detection off).
export function isTvmScriptText(text: string, firstLines: number): boolean {
  if (firstLines <= 0) return false;
  let start = 0;
  for (let line = 0; line < firstLines && start <= text.length; ++line) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    if (DECORATOR.test(text.slice(start, end))) return true;
    start = end + 1;
  }
  return false;
}
