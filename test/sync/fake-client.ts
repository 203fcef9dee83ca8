/** An in-memory SyncClient for engine tests: a map of live objects, a write log, injectable failures. */
import { UnknownKindError } from '../../src/sync/engine-types.js';
import type { SyncClient, Unserved } from '../../src/sync/engine-types.js';
import { formatResourceKey } from '../../src/sync/plan.js';
import type { SyncTask } from '../../src/sync/types.js';
import type { KubeObject } from '../../src/common/index.js';

export class FakeSyncClient implements SyncClient {
  readonly objects = new Map<string, KubeObject>();
  /** "apply <kind>/<name>", "delete <kind>/<name>", "dry-run <kind>/<name>", "unfinalize <kind>/<name>". */
  readonly log: string[] = [];
  readonly dryRunFailures = new Map<string, string>();
  readonly applyFailures = new Map<string, string>();
  readonly unservedKinds = new Set<string>();
  /** An unserved kind's name to what discovery says of it (its error, a kind of that name served elsewhere). */
  readonly unservedAs = new Map<string, Unserved>();
  /** Kinds whose live state cannot be followed (a lost watch), with the reason `lost` gives. */
  readonly lostKinds = new Map<string, string>();
  /** Applied to every object written, e.g. to complete Jobs at once. */
  onWrite: (obj: KubeObject) => KubeObject = (o) => o;
  /** Deletions leave the object terminating (deletionTimestamp) instead of removing it. */
  slowDeletes = false;
  /** As a real cluster: a write that changes nothing, or a delete of nothing, sends no event. */
  quiet = false;
  /** How many times the engine waited for a change (`changed` not already past). */
  waits = 0;
  #listeners: Array<() => void> = [];
  #generation = 0;

  lost(task: SyncTask): string | undefined {
    return this.lostKinds.get(task.key.kind);
  }

  /** Marks a kind's watch lost (as the live cache tells its subscribers) and wakes the engine. */
  loseKind(kind: string, reason: string): void {
    this.lostKinds.set(kind, reason);
    this.#emit();
  }

  served(task: SyncTask): boolean {
    return !this.unservedKinds.has(task.key.kind);
  }

  unserved(task: SyncTask): Unserved | undefined {
    return this.unservedAs.get(task.key.kind);
  }

  async dryRun(task: SyncTask): Promise<void> {
    this.log.push(`dry-run ${name(task)}`);
    if (this.unservedKinds.has(task.key.kind)) throw new UnknownKindError(`no kind ${task.key.kind}`);
    const failure = this.dryRunFailures.get(task.key.name);
    if (failure) throw new Error(failure);
  }

  async apply(task: SyncTask): Promise<boolean> {
    this.log.push(`apply ${name(task)}`);
    const failure = this.applyFailures.get(task.key.name);
    if (failure) throw new Error(failure);
    const before = this.objects.get(formatResourceKey(task.key));
    const next = this.onWrite(structuredClone(task.target!));
    const changed = JSON.stringify(before) !== JSON.stringify(next);
    if (changed || !this.quiet) this.set(task, next);
    return changed;
  }

  async delete(task: SyncTask): Promise<void> {
    this.log.push(`delete ${name(task)}`);
    const key = formatResourceKey(task.key);
    const live = this.objects.get(key);
    if (!live) return;
    if (this.slowDeletes)
      this.set(task, { ...live, metadata: { ...live.metadata, deletionTimestamp: 'now' } });
    else {
      this.objects.delete(key);
      this.#emit();
    }
  }

  async removeFinalizer(task: SyncTask, live: KubeObject): Promise<void> {
    this.log.push(`unfinalize ${name(task)}`);
    this.set(task, { ...live, metadata: { ...live.metadata, finalizers: [] } });
  }

  live(task: SyncTask): KubeObject | undefined {
    return this.objects.get(formatResourceKey(task.key));
  }

  generation(): number {
    return this.#generation;
  }

  changed(after: number, signal: AbortSignal): Promise<void> {
    if (this.#generation > after) return Promise.resolve();
    this.waits++;
    return new Promise((resolve) => {
      this.#listeners.push(resolve);
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  /** Sets a live object (as a watch event would) and wakes the engine. */
  set(task: Pick<SyncTask, 'key'>, obj: KubeObject): void {
    this.objects.set(formatResourceKey(task.key), obj);
    this.#emit();
  }

  /** Sets a live object without an event (a change whose watch event was missed). */
  setSilently(task: Pick<SyncTask, 'key'>, obj: KubeObject): void {
    this.objects.set(formatResourceKey(task.key), obj);
  }

  #emit(): void {
    this.#generation++;
    const listeners = this.#listeners;
    this.#listeners = [];
    queueMicrotask(() => listeners.forEach((l) => l()));
  }
}

function name(task: SyncTask): string {
  return `${task.key.kind}/${task.key.name}`;
}

export function completeJob(obj: KubeObject, type: 'Complete' | 'Failed' = 'Complete'): KubeObject {
  if (obj.kind !== 'Job') return obj;
  return { ...obj, status: { conditions: [{ type, status: 'True', message: `job ${type.toLowerCase()}` }] } };
}
