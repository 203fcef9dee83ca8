/**
 * Plain progress lines (stderr when it is not a TTY, e.g. CI logs): one line per event a reader can act on,
 * stable and grep-able, no colour, no cursor movement. Every line about an app starts with `<app>: `.
 *
 *   cluster kind-dev: live cache syncing 42 kinds
 *   cluster kind-dev: live cache synced: 42 kinds, 318 objects
 *   web: operation started: 4 tasks in 3 waves
 *   web: PreSync wave 0: started (1 task)
 *   web: PreSync wave 0 batch/Job web/migrate: Synced (job.batch/migrate created)
 *   web: PreSync wave 0: done (1 succeeded, 0 failed)
 *   web: operation Succeeded: successfully synced (all tasks run)
 *   web: done: sync Synced, health Healthy
 *
 * While a sync waits (for a hook or between waves; with --health, for the app to be Healthy) it says what
 * for, one line per resource, printed when it first appears or its health or reason changes:
 *
 *   web: waiting for Service web/front: Progressing: waiting for load balancer
 *   web: waiting for health: Service web/front: Progressing: waiting for load balancer
 *
 * Render and compare events have no line (a sync compares each app several times); a task prints a line
 * only when what a reader sees changes, so the same line never appears twice for one operation.
 */
import type { RunEvent } from '../controller/index.js';
import type { TaskRef, WaitingResource } from '../sync/index.js';

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `<group>/<Kind> <namespace>/<name>`, as the sync report names a resource. */
export function taskLabel(t: TaskRef): string {
  return `${t.group ? `${t.group}/` : ''}${t.kind} ${t.namespace ? `${t.namespace}/` : ''}${t.name}`;
}

/** `<group>/<Kind> <namespace>/<name>: <health>: <why>`: what a wait is for. */
export function waitingLine(r: WaitingResource): string {
  const label = `${r.group ? `${r.group}/` : ''}${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name}`;
  return `${label}: ${r.health ? `${r.health}: ` : ''}${r.reason}`;
}

/** Turns events into lines; keeps what it needs to print each change once. */
export class ProgressLines {
  /** Last line printed per app and task id (reset when the app's next operation starts). */
  readonly #seen = new Map<string, string>();
  readonly #attempts = new Map<string, number>();
  /** Per app, the waiting lines of its last `waiting` / `health-wait` event. */
  readonly #waiting = new Map<string, Set<string>>();

  /** The lines of `lines` not printed for `app`'s previous wait (what changed), remembered for the next. */
  #changed(app: string, lines: string[]): string[] {
    const before = this.#waiting.get(app) ?? new Set<string>();
    this.#waiting.set(app, new Set(lines));
    return lines.filter((l) => !before.has(l));
  }

  lines(e: RunEvent): string[] {
    switch (e.type) {
      case 'cache-sync-start':
        return [`cluster ${e.cluster}: live cache syncing ${plural(e.kinds, 'kind')}`];
      case 'cache-sync-done':
        return [
          e.error
            ? `cluster ${e.cluster}: live cache failed: ${e.error}`
            : `cluster ${e.cluster}: live cache synced: ${plural(e.kinds, 'kind')}, ${plural(e.objects, 'object')}`,
        ];
      case 'operation-start': {
        const attempt = (this.#attempts.get(e.app) ?? 0) + 1;
        this.#attempts.set(e.app, attempt);
        for (const key of [...this.#seen.keys()]) if (key.startsWith(`${e.app}\0`)) this.#seen.delete(key);
        const tasks = e.groups.reduce((n, g) => n + g.tasks.length, 0);
        const retry = attempt > 1 ? ` (retry ${attempt - 1})` : '';
        return [
          `${e.app}: ${e.dryRun ? 'dry run ' : ''}operation started${retry}: ${plural(tasks, 'task')} in ${plural(e.groups.length, 'wave')}`,
        ];
      }
      case 'validate-done':
        return e.failed > 0 ? [`${e.app}: dry run: ${plural(e.failed, 'task')} failed`] : [];
      case 'wave-start':
        return [`${e.app}: ${e.syncPhase} wave ${e.syncWave}: started (${plural(e.tasks, 'task')})`];
      case 'task': {
        const t = e.task;
        const line = `${e.app}: ${t.syncPhase} wave ${t.syncWave} ${taskLabel(t)}: ${e.phase === 'Failed' && e.status === 'Synced' ? 'Failed' : e.status || e.phase}${e.message ? ` (${e.message})` : ''}`;
        // A task moving from Running to Succeeded with the same result and message would print twice.
        const key = `${e.app}\0${t.id}`;
        if (this.#seen.get(key) === line) return [];
        this.#seen.set(key, line);
        return [line];
      }
      case 'waiting':
        return this.#changed(
          e.app,
          e.resources.map((r) => `${e.app}: waiting for ${waitingLine(r)}`),
        );
      case 'health-wait':
        return this.#changed(
          e.app,
          e.resources.map((r) => `${e.app}: waiting for health: ${waitingLine(r)}`),
        );
      case 'wave-done':
        this.#waiting.delete(e.app);
        return [
          `${e.app}: ${e.syncPhase} wave ${e.syncWave}: done (${e.succeeded} succeeded, ${e.failed} failed)`,
        ];
      case 'operation-done':
        return [`${e.app}: operation ${e.phase}: ${e.message}`];
      case 'app-done':
        return [
          e.error
            ? `${e.app}: error: ${e.error}`
            : `${e.app}: done: sync ${e.sync ?? 'Unknown'}, health ${e.health ?? 'Unknown'}`,
        ];
      default:
        return [];
    }
  }
}
