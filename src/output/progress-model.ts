/**
 * What the TTY progress display shows, folded from a run's events (`RunEvent`): per cluster the cache
 * sync, per app its stage and (sync) its operation by group and task. Plain data with change listeners; the
 * listr2 views (progress-tty.ts) read it and never keep state of their own.
 */
import type { AppSyncStatus, RunEvent } from '../controller/index.js';
import type { HealthStatus } from '../health/index.js';
import type { OperationPhase, ResultCode, SyncPhase, TaskPhase, TaskRef } from '../sync/index.js';
import { waitingLine } from './progress-lines.js';

export interface ClusterView {
  name: string;
  kinds: number;
  listed: number;
  scopes: number;
  objects: number;
  state: 'waiting' | 'syncing' | 'done' | 'failed';
  error?: string;
}

export interface TaskView {
  ref: TaskRef;
  phase: TaskPhase;
  status: ResultCode | '';
  message: string;
}

export interface GroupView {
  syncPhase: SyncPhase;
  syncWave: number;
  state: 'pending' | 'running' | 'done';
  tasks: TaskView[];
}

export interface OperationView {
  attempt: number;
  dryRun: boolean;
  validating: boolean;
  groups: GroupView[];
  /** Set when the operation ended. */
  phase?: OperationPhase;
  message?: string;
}

export interface AppView {
  name: string;
  stage: 'waiting' | 'rendering' | 'comparing' | 'syncing' | 'done';
  rendered: boolean;
  operation?: OperationView;
  sync?: AppSyncStatus;
  health?: HealthStatus;
  error?: string;
  /** What the app waits for now (a hook, a wave, or with --health its health): one line per resource. */
  waitingFor?: string[];
}

export class ProgressModel {
  started = false;
  ended = false;
  readonly apps = new Map<string, AppView>();
  readonly clusters = new Map<string, ClusterView>();
  readonly #listeners = new Set<() => void>();

  get total(): number {
    return this.apps.size;
  }

  get rendered(): number {
    return [...this.apps.values()].filter((a) => a.rendered).length;
  }

  get finished(): number {
    return [...this.apps.values()].filter((a) => a.stage === 'done').length;
  }

  /** Calls `listener` after every change; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The run is over (or was stopped): every view ends with what it shows now. */
  end(): void {
    this.ended = true;
    this.#notify();
  }

  apply(e: RunEvent): void {
    this.#fold(e);
    this.#notify();
  }

  #notify(): void {
    for (const listener of [...this.#listeners]) listener();
  }

  #app(name: string): AppView {
    let app = this.apps.get(name);
    if (!app) {
      app = { name, stage: 'waiting', rendered: false };
      this.apps.set(name, app);
    }
    return app;
  }

  #cluster(name: string): ClusterView {
    let c = this.clusters.get(name);
    if (!c) {
      c = { name, kinds: 0, listed: 0, scopes: 0, objects: 0, state: 'waiting' };
      this.clusters.set(name, c);
    }
    return c;
  }

  #fold(e: RunEvent): void {
    switch (e.type) {
      case 'run-start':
        this.started = true;
        for (const a of e.apps) this.#app(a.name);
        for (const c of e.clusters) this.#cluster(c);
        return;
      case 'cache-sync-start':
        Object.assign(this.#cluster(e.cluster), { kinds: e.kinds, state: 'syncing' });
        return;
      case 'cache-sync-progress':
        Object.assign(this.#cluster(e.cluster), { listed: e.listed, scopes: e.scopes });
        return;
      case 'cache-sync-done':
        Object.assign(
          this.#cluster(e.cluster),
          e.error ? { state: 'failed', error: e.error } : { state: 'done', objects: e.objects },
        );
        return;
      case 'render-start': {
        const app = this.#app(e.app);
        if (app.stage === 'waiting') app.stage = 'rendering';
        return;
      }
      case 'render-done': {
        const app = this.#app(e.app);
        app.rendered = true;
        if (app.stage === 'rendering') app.stage = 'comparing';
        return;
      }
      case 'compare-done':
        Object.assign(this.#app(e.app), { sync: e.sync, health: e.health });
        return;
      case 'health-wait':
        this.#app(e.app).waitingFor = e.resources.map(waitingLine);
        return;
      case 'app-done':
        delete this.#app(e.app).waitingFor;
        Object.assign(this.#app(e.app), {
          stage: 'done',
          ...(e.sync ? { sync: e.sync } : {}),
          ...(e.health ? { health: e.health } : {}),
          ...(e.error ? { error: e.error } : {}),
        });
        return;
      case 'operation-start': {
        const app = this.#app(e.app);
        app.stage = 'syncing';
        app.operation = {
          attempt: (app.operation?.attempt ?? 0) + 1,
          dryRun: e.dryRun,
          validating: false,
          groups: e.groups.map((g) => ({
            syncPhase: g.syncPhase,
            syncWave: g.syncWave,
            state: 'pending',
            tasks: g.tasks.map((ref) => ({ ref, phase: 'Pending', status: '', message: '' })),
          })),
        };
        return;
      }
      default:
        break;
    }
    const op = this.apps.get(e.app)?.operation;
    if (!op) return;
    switch (e.type) {
      case 'validate-start':
        op.validating = true;
        return;
      case 'validate-done':
        op.validating = false;
        return;
      case 'wave-start':
        groupOf(op, e.syncPhase, e.syncWave).state = 'running';
        return;
      case 'waiting':
        this.apps.get(e.app)!.waitingFor = e.resources.map(waitingLine);
        return;
      case 'wave-done':
        groupOf(op, e.syncPhase, e.syncWave).state = 'done';
        delete this.apps.get(e.app)!.waitingFor;
        return;
      case 'task': {
        const group = groupOf(op, e.task.syncPhase, e.task.syncWave);
        let task = group.tasks.find((t) => t.ref.id === e.task.id);
        if (!task) {
          task = { ref: e.task, phase: 'Pending', status: '', message: '' };
          group.tasks.push(task);
        }
        Object.assign(task, { phase: e.phase, status: e.status, message: e.message });
        return;
      }
      case 'operation-done': {
        Object.assign(op, { phase: e.phase, message: e.message, validating: false });
        // What was compared before the operation is stale: the next compare tells the final state.
        const app = this.apps.get(e.app)!;
        delete app.sync;
        delete app.health;
        delete app.waitingFor;
        return;
      }
    }
  }
}

/** The group of a plan; groups the plan did not list (SyncFail hooks) are added when they show up. */
function groupOf(op: OperationView, syncPhase: SyncPhase, syncWave: number): GroupView {
  let group = op.groups.find((g) => g.syncPhase === syncPhase && g.syncWave === syncWave);
  if (!group) {
    group = { syncPhase, syncWave, state: 'pending', tasks: [] };
    op.groups.push(group);
  }
  return group;
}
