// The text the workbench commands exchange with the user: the recipe typed in, and the pick
// items, tab titles and error messages made from the server's answers. No `vscode` import: the
// Node test checks these on the real server's results.
import type { PassSnapshot, PassSnapshotsResult, ScheduleError } from './workbench_requests';

export interface PassItem {
  label: string;
  description: string;
  detail: string;
  snapshot: PassSnapshot;
}

// One pick item per pass of a run, in the order the passes ran.
export function passItems(result: PassSnapshotsResult): PassItem[] {
  return result.passes.map((s) => ({
    label: `${s.index + 1}. ${s.name}`,
    description: `${s.milliseconds.toFixed(2)} ms`,
    detail: s.after === '' ? 'failed' : s.changed ? 'changed the module' : 'left the module unchanged',
    snapshot: s,
  }));
}

// The title of the diff tab of one pass: its name and place in the pipeline.
export function snapshotTitle(result: PassSnapshotsResult, snapshot: PassSnapshot): string {
  return `${snapshot.name} (${snapshot.index + 1} of ${result.passes.length} in ${result.pipeline}): before ↔ after`;
}

// Why a run failed, naming the pass that failed when one did.
export function pipelineFailure(result: PassSnapshotsResult): string {
  const failed = result.passes.find((s) => s.after === '');
  const where = failed ? ` at pass ${failed.index + 1} (${failed.name})` : '';
  return `TVMScript: ${result.pipeline} failed${where}: ${result.error ?? 'no reason given'}`;
}

// The module a whole run ends with: the last pass's `after` (undefined when nothing ran).
export function finalModule(result: PassSnapshotsResult): { before: string; after: string } | undefined {
  if (!result.ok || result.passes.length === 0) return undefined;
  return { before: result.passes[0].before, after: result.passes[result.passes.length - 1].after };
}

// A schedule error with where it is in the recipe (the server's position is 0-based) and that
// line of the recipe, so a one-line input box still shows what was wrong.
export function scheduleFailure(error: ScheduleError, recipe: string): string {
  if (error.line === undefined) return `TVMScript: the schedule step failed: ${error.message}`;
  const line = recipe.split('\n')[error.line] ?? '';
  const column = (error.character ?? 0) + 1;
  return `TVMScript: the schedule step failed at recipe line ${error.line + 1}, column ${column}: ${error.message} (in: ${line.trim()})`;
}

// A recipe typed on one line, its steps separated by ';', as the lines the server reads.
export function recipeFromInput(input: string): string {
  return input
    .split(';')
    .map((step) => step.trim())
    .filter((step) => step !== '')
    .join('\n');
}
