/**
 * The operations phase's steps (operations.ts runs them): what a step writes into an Application, as Argo
 * CD's CLI and API server write it; what it waits for; and the poller that reads every Application of
 * Argo CD's namespace once per poll for all the steps waiting.
 */
import type { Env } from './env.js';
import type { Obj, OperationStep } from './case.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const FINAL = ['Succeeded', 'Failed', 'Error'];

/** Every Application of Argo CD's namespace, listed once per poll for all waiters. */
interface Waiter {
  name: string;
  done: (a: Obj | undefined) => boolean;
  resolve: () => void;
  /** Only lists started after the waiter came count (one in flight may predate the step's write). */
  after: number;
  /** `stableMs`: `done` must hold, the app's resourceVersion unchanged, this long. */
  stableMs: number;
  since?: { at: number; version: string } | undefined;
}

export class AppPoller {
  private waiters = new Set<Waiter>();
  private running = false;
  private last = new Map<string, Obj>();
  private started = 0;
  private lastSeq = 0;

  constructor(private readonly env: Env) {}

  get(name: string): Obj | undefined {
    return this.last.get(name);
  }

  async refresh(): Promise<void> {
    const seq = ++this.started;
    const list = await this.env.kubectl.getJson(['applications.argoproj.io', '-n', this.env.argocdNs]);
    if (!list || seq < this.lastSeq) return;
    this.lastSeq = seq;
    this.last = new Map(((list.items ?? []) as Obj[]).map((a) => [String(a.metadata.name), a]));
  }

  /** Resolves with the app (undefined: gone) once `done` holds, or with `timedOut` after `ms`. */
  async wait(
    name: string,
    done: (a: Obj | undefined) => boolean,
    ms: number,
    stableMs = 0,
  ): Promise<{ app: Obj | undefined; timedOut: boolean }> {
    let w!: Waiter;
    const reached = new Promise<void>((resolve) => {
      w = { name, done, resolve, after: this.started, stableMs };
      this.waiters.add(w);
    });
    void this.loop();
    const timedOut = await Promise.race([reached.then(() => false), sleep(ms).then(() => true)]);
    this.waiters.delete(w);
    return { app: this.last.get(name), timedOut };
  }

  private async loop(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.waiters.size > 0) {
        await this.refresh();
        for (const w of [...this.waiters]) {
          if (this.lastSeq <= w.after) continue;
          const a = this.last.get(w.name);
          if (!w.done(a)) {
            w.since = undefined;
            continue;
          }
          const version = String(a?.metadata?.resourceVersion ?? '');
          if (w.since?.version !== version) w.since = { at: Date.now(), version };
          if (Date.now() - w.since.at < w.stableMs) continue;
          this.waiters.delete(w);
          w.resolve();
        }
        if (this.waiters.size > 0) await sleep(700);
      }
    } finally {
      this.running = false;
    }
  }
}

/** A hook of the running operation is itself running (`syncResult` lists it with hookPhase Running). */
export function hookRunning(a: Obj | undefined): boolean {
  const op = a?.status?.operationState;
  return (
    op?.phase === 'Running' &&
    ((op.syncResult?.resources ?? []) as Obj[]).some((r) => r.hookType && r.hookPhase === 'Running')
  );
}

export function retrying(a: Obj | undefined): boolean {
  const op = a?.status?.operationState;
  return op?.phase === 'Running' && /Retrying attempt #\d+/.test(String(op.message ?? ''));
}

/** The operation written by the step has ended: `operation` cleared, a final phase. */
export function ended(a: Obj | undefined): boolean {
  return !!a && !a.operation && FINAL.includes(a.status?.operationState?.phase);
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Obj)[k])]),
    );
  return v;
}

/** The operation a step writes, as `argocd app sync` / `argocd app rollback` (server/application) write it. */
export function stepOperation(step: OperationStep, app: Obj | undefined, shas: readonly string[]): Obj {
  const initiatedBy = { username: 'conformance' };
  if (step.op === 'rollback') {
    const h = ((app?.status?.history ?? []) as Obj[]).find((x) => x.id === step.id);
    if (!h) throw new Error(`rollback: the app has no history entry ${step.id}`);
    return {
      sync: {
        ...(h.revision ? { revision: h.revision } : {}),
        ...(h.revisions ? { revisions: h.revisions } : {}),
        ...(step.dryRun ? { dryRun: true } : {}),
        ...(step.prune ? { prune: true } : {}),
        ...(app?.spec?.syncPolicy?.syncOptions ? { syncOptions: app.spec.syncPolicy.syncOptions } : {}),
        syncStrategy: { apply: {} },
        ...(h.source ? { source: h.source } : {}),
        ...(h.sources ? { sources: h.sources } : {}),
      },
      initiatedBy,
    };
  }
  const revision = step.revision?.replace(/\$\{REV:(\d+)\}/g, (_m, n: string) => shas[Number(n) - 1] ?? '');
  return {
    sync: {
      ...(revision ? { revision } : {}),
      ...(step.prune ? { prune: true } : {}),
      ...(step.dryRun ? { dryRun: true } : {}),
      ...(step.syncOptions ? { syncOptions: step.syncOptions } : {}),
      syncStrategy: step.strategy === 'apply' ? { apply: {} } : { hook: {} },
      // As `argocd app sync --local` sends them: each object as Go's json.Marshal writes it (keys sorted).
      ...(step.manifests ? { manifests: step.manifests.map((m) => JSON.stringify(sortKeys(m))) } : {}),
    },
    initiatedBy,
    ...(step.retry ? { retry: step.retry } : {}),
  };
}
