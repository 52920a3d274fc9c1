// Where the workbench-lsp binary is, from the `workbench.lspPath` setting. No `vscode` import:
// the Node test resolves and starts the server through these same functions.
import * as fs from 'fs';
import * as path from 'path';

export const SERVER_SETTING = 'workbench.lspPath';

export interface ServerLookup {
  workspaceFolder?: string; // a relative setting is taken from here
  env: NodeJS.ProcessEnv; // PATH and HOME
  platform: NodeJS.Platform;
}

function isExecutableFile(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

// A setting with a path separator must name an executable as given (`~` is HOME, a relative
// path is taken from the workspace folder); a bare name is looked up on PATH. Undefined when
// nothing is found, so that the user gets `serverNotFoundMessage` rather than a spawn error.
export function resolveServer(configured: string, lookup: ServerLookup): string | undefined {
  if (configured.includes('/') || configured.includes('\\')) {
    let p = configured.replace(/^~(?=$|[\\/])/, lookup.env.HOME ?? '~');
    if (!path.isAbsolute(p) && lookup.workspaceFolder) p = path.join(lookup.workspaceFolder, p);
    return isExecutableFile(p) ? p : undefined;
  }
  const exts = lookup.platform === 'win32' ? ['.exe', ''] : [''];
  for (const dir of (lookup.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = path.join(dir, configured + ext);
      if (isExecutableFile(candidate)) return candidate;
    }
  }
  return undefined;
}

export function serverNotFoundMessage(configured: string): string {
  return (
    `TVMScript: the language server '${configured}' was not found. Build it ` +
    '(cmake --build --preset release --target workbench-lsp) and set ' +
    `${SERVER_SETTING} to its path (e.g. build/release/lsp/workbench-lsp).`
  );
}
