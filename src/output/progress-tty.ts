/**
 * The TTY progress display: listr2's default renderer drawn on stderr, as views over a `ProgressModel`.
 * Every listr2 task only mirrors the model (its title is recomputed on each event and it ends when the
 * model says so), so the display can never disagree with the run.
 *
 * - diff / render: per cluster the live cache sync ("listing 12/40 kinds"), apps rendered and compared out
 *   of the total.
 * - sync: the clusters, then per app its stage; while it syncs, its waves (phase, wave, tasks done out of
 *   the wave's) and in the running wave its tasks, with their result.
 * listr2 never registers its own SIGINT handler (Ctrl-C stays the command's: stop, report, exit 130) and
 * never writes to stdout; the display is erased when it ends, so only the command's report remains.
 * Lines written to stderr by others while it draws are held by listr2 and printed when it ends.
 */
import { DefaultRenderer, Listr, ListrLogger, ProcessOutput } from 'listr2';
import type { ListrTask, ListrTaskWrapper } from 'listr2';
import type { RunEvent } from '../controller/index.js';
import { taskLabel } from './progress-lines.js';
import { ProgressModel } from './progress-model.js';
import type { AppView, ClusterView, GroupView, OperationView, TaskView } from './progress-model.js';

/** The stream the display draws on: a TTY (process.stderr, or a test's fake). */
export type ProgressStream = NodeJS.WriteStream;

/** listr2's default renderer, allowed on stderr whatever stdout is (listr2 only checks stdout's TTY). */
class StderrRenderer extends DefaultRenderer {
  static override nonTTY = true;
}

type Wrapper = ListrTaskWrapper<object, typeof StderrRenderer, typeof StderrRenderer>;
type Task = ListrTask<object, typeof StderrRenderer, typeof StderrRenderer>;

interface View {
  title: string;
  state: 'running' | 'done' | 'failed' | 'skipped';
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
const CURSOR_SHOW = '\u001B[?25h';

export class TtyProgress {
  readonly model = new ProgressModel();
  readonly #stream: ProgressStream;
  readonly #done: Promise<unknown>;
  readonly #output: ProcessOutput;
  /**
   * A process that exits mid-display (a second Ctrl-C, the grace period after the first) hands stderr back:
   * the lines written meanwhile (such as "error: interrupted") are printed and the cursor shown again.
   */
  readonly #release = (): void => {
    this.#output.release();
    this.#stream.write(CURSOR_SHOW);
  };

  constructor(stream: ProgressStream, command: 'diff' | 'sync' | 'render') {
    this.#stream = stream;
    this.#output = new ProcessOutput(stream, stream, { dump: ['stderr'], leaveEmptyLine: false });
    const tasks = command === 'sync' ? this.#syncTasks() : this.#refreshTasks(command);
    const listr = new Listr<object, typeof StderrRenderer, typeof StderrRenderer>(tasks, {
      concurrent: true,
      exitOnError: false,
      registerSignalListeners: false,
      silentRendererCondition: false,
      fallbackRendererCondition: false,
      renderer: StderrRenderer,
      fallbackRenderer: StderrRenderer,
      rendererOptions: {
        clearOutput: true,
        logger: new ListrLogger({ processOutput: this.#output }),
      },
    });
    process.once('exit', this.#release);
    // Task failures are part of what is shown, never errors of the display.
    this.#done = listr.run().catch(() => undefined);
  }

  onEvent(e: RunEvent): void {
    this.model.apply(e);
  }

  /** Ends every view with what it shows now and waits until the terminal is handed back. */
  async stop(): Promise<void> {
    this.model.end();
    await this.#done;
    process.removeListener('exit', this.#release);
  }

  /** The live caches, one task per cluster once the run knows them. */
  #clustersTask(): Task {
    return {
      title: 'Live state',
      task: async (_ctx, task) => {
        await this.#until(task, () => ({
          title: 'Live state: resolving clusters',
          state: this.model.started || this.model.ended ? 'done' : 'running',
        }));
        const clusters = [...this.model.clusters.values()];
        if (clusters.length === 0) {
          task.skip('Live state: no cluster');
          return;
        }
        task.title = `Live state: ${plural(clusters.length, 'cluster')}`;
        return task.newListr(
          clusters.map((c) => ({
            title: c.name,
            task: (_c: object, t: Wrapper) => this.#until(t, () => clusterView(c, this.model.ended)),
          })),
          { concurrent: true },
        );
      },
    };
  }

  #refreshTasks(command: 'diff' | 'render'): Task[] {
    const m = this.model;
    const counted = (verb: string, done: string, count: () => number) => ({
      title: verb,
      task: (_ctx: object, task: Wrapper) =>
        this.#until(task, () => {
          const n = count();
          const all = m.started && n >= m.total;
          return {
            title: all || m.ended ? `${done} ${n}/${m.total} apps` : `${verb} apps: ${n}/${m.total}`,
            state: all || m.ended ? 'done' : 'running',
          };
        }),
    });
    const render = counted('Rendering', 'Rendered', () => m.rendered);
    if (command === 'render') return [render];
    return [this.#clustersTask(), render, counted('Comparing', 'Compared', () => m.finished)];
  }

  #syncTasks(): Task[] {
    return [
      this.#clustersTask(),
      {
        title: 'Apps',
        task: async (_ctx, task) => {
          await this.#until(task, () => ({
            title: 'Apps',
            state: this.model.started || this.model.ended ? 'done' : 'running',
          }));
          const apps = [...this.model.apps.values()];
          const m = this.model;
          // The parent's title counts finished apps while its subtasks draw each app.
          this.#mirror(task, () => ({
            title: `Apps: ${m.finished}/${m.total} done`,
            state: m.ended || m.finished >= m.total ? 'done' : 'running',
          }));
          return task.newListr(
            apps.map((a) => ({ title: a.name, task: (_c: object, t: Wrapper) => this.#appTask(a, t) })),
            { concurrent: true, exitOnError: false },
          );
        },
      },
    ];
  }

  /** One app: its stage until its operation starts, then its waves, then its final sync and health. */
  async #appTask(app: AppView, task: Wrapper): Promise<unknown> {
    const m = this.model;
    await this.#until(task, () =>
      app.operation && app.stage !== 'done'
        ? { title: appView(app, m.ended).title, state: 'done' }
        : appView(app, m.ended),
    );
    const op = app.operation;
    if (!op || app.stage === 'done') return undefined;
    this.#mirror(task, () => appView(app, m.ended));
    return task.newListr(
      [
        ...op.groups.map((g) => ({
          title: groupTitle(g),
          task: (_c: object, t: Wrapper) => this.#groupTask(op, g, t),
        })),
        {
          title: 'final sync and health',
          task: (_c: object, t: Wrapper) => this.#until(t, () => finalView(app, m.ended)),
        },
      ],
      { concurrent: false, exitOnError: false },
    );
  }

  /** One wave: waits for its start, then its tasks; its title counts tasks done. */
  async #groupTask(op: OperationView, g: GroupView, task: Wrapper): Promise<unknown> {
    const over = (): boolean => this.model.ended || op.phase !== undefined;
    await this.#until(task, () => ({
      title: groupTitle(g),
      state: g.state !== 'pending' ? 'done' : over() ? 'skipped' : 'running',
    }));
    if (g.state === 'pending') return undefined;
    this.#mirror(task, () => ({
      title: groupTitle(g),
      state: g.state === 'done' || over() ? 'done' : 'running',
    }));
    return task.newListr(
      g.tasks.map((t) => ({
        title: taskTitle(t),
        task: (_c: object, w: Wrapper) => this.#until(w, () => taskView(t, over())),
      })),
      { concurrent: true, exitOnError: false },
    );
  }

  /** Keeps `task`'s title as `view` says until the view is no longer running (a parent of subtasks). */
  #mirror(task: Wrapper, view: () => View): void {
    const update = (): void => {
      const v = view();
      if (task.title !== v.title) task.title = v.title;
      if (v.state !== 'running') off();
    };
    const off = this.model.subscribe(update);
    update();
  }

  /**
   * Mirrors `view` on `task` after every change of the model; resolves when the view is done (a failed
   * view rejects, so listr2 marks it failed; a skipped one is skipped).
   */
  #until(task: Wrapper, view: () => View): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let off: (() => void) | undefined;
      let finished = false;
      const update = (): void => {
        if (finished) return;
        const v = view();
        if (task.title !== v.title) task.title = v.title;
        if (v.state === 'running') return;
        finished = true;
        off?.();
        if (v.state === 'failed') reject(new Error(v.title));
        else {
          if (v.state === 'skipped') task.skip(v.title);
          resolve();
        }
      };
      update();
      if (!finished) off = this.model.subscribe(update);
    });
  }
}

function clusterView(c: ClusterView, ended: boolean): View {
  switch (c.state) {
    case 'waiting':
      return { title: `${c.name}: waiting`, state: ended ? 'skipped' : 'running' };
    case 'syncing':
      return {
        title: `${c.name}: live cache listing ${c.scopes > 0 ? `${c.listed}/${c.scopes}` : `${c.kinds}`} kinds`,
        state: ended ? 'skipped' : 'running',
      };
    case 'done':
      return {
        title: `${c.name}: live cache synced (${plural(c.kinds, 'kind')}, ${plural(c.objects, 'object')}), watching`,
        state: 'done',
      };
    case 'failed':
      return { title: `${c.name}: ${c.error ?? 'failed'}`, state: 'failed' };
  }
}

function appView(app: AppView, ended: boolean): View {
  if (app.stage === 'done') {
    if (app.error) return { title: `${app.name}: ${app.error}`, state: 'failed' };
    const op = app.operation;
    const result = op?.phase ? `${op.dryRun ? 'dry run ' : ''}${op.phase}, ` : '';
    return {
      title: `${app.name}: ${result}sync ${app.sync ?? 'Unknown'}, health ${app.health ?? 'Unknown'}`,
      state: op?.phase && op.phase !== 'Succeeded' ? 'failed' : 'done',
    };
  }
  const op = app.operation;
  const retry = op && op.attempt > 1 ? ` (retry ${op.attempt - 1})` : '';
  const stage =
    app.stage === 'syncing' && op
      ? op.phase
        ? `operation ${op.phase}${retry}: waiting for the final state`
        : op.validating
          ? `dry run of every task${retry}`
          : `syncing${retry}`
      : app.stage;
  return { title: `${app.name}: ${stage}${waitingText(app)}`, state: ended ? 'skipped' : 'running' };
}

/** `; waiting for <first resource> (and N more)`, or '' when the app waits for nothing. */
function waitingText(app: AppView): string {
  const w = app.waitingFor ?? [];
  if (w.length === 0) return '';
  return `; waiting for ${w[0]}${w.length > 1 ? ` (and ${w.length - 1} more)` : ''}`;
}

function finalView(app: AppView, ended: boolean): View {
  if (app.stage !== 'done') {
    const seen = app.health ? `: sync ${app.sync ?? 'Unknown'}, health ${app.health}` : ': comparing';
    return { title: `final sync and health${seen}${waitingText(app)}`, state: ended ? 'skipped' : 'running' };
  }
  if (app.error) return { title: app.error, state: 'failed' };
  const failed = app.health === 'Degraded' || (app.operation?.phase ?? 'Succeeded') !== 'Succeeded';
  return {
    title: `final sync ${app.sync ?? 'Unknown'}, health ${app.health ?? 'Unknown'}`,
    state: failed ? 'failed' : 'done',
  };
}

function groupTitle(g: GroupView): string {
  const done = g.tasks.filter((t) => t.phase === 'Succeeded' || t.phase === 'Skipped').length;
  const failed = g.tasks.filter((t) => t.phase === 'Failed').length;
  return `${g.syncPhase} wave ${g.syncWave}: ${done}/${g.tasks.length} tasks done${failed ? `, ${failed} failed` : ''}`;
}

function taskTitle(t: TaskView): string {
  const state = t.phase === 'Failed' && t.status === 'Synced' ? 'Failed' : t.status || t.phase;
  return `${taskLabel(t.ref)}: ${state}${t.message ? ` (${t.message})` : ''}`;
}

function taskView(t: TaskView, over: boolean): View {
  const title = taskTitle(t);
  if (t.phase === 'Succeeded') return { title, state: 'done' };
  if (t.phase === 'Failed') return { title, state: 'failed' };
  if (t.phase === 'Skipped') return { title, state: 'skipped' };
  return { title, state: over ? 'skipped' : 'running' };
}
