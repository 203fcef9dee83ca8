/**
 * An in-process stand-in for the KubeClient's list/watch, for deterministic tests of the live cache's loops
 * (resume, relist, backoff) without HTTP. One resource type (ConfigMaps); events are kept in a log that
 * `compact()` truncates, so watches from older resourceVersions get 410 Gone as on a real server.
 */
import { ApiError } from '../../src/cluster/index.js';
import type {
  KubeClient,
  KubeObject,
  ListResult,
  ResourceInfo,
  WatchEvent,
} from '../../src/cluster/index.js';

export const configMaps: ResourceInfo = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
  verbs: ['list', 'watch', 'get'],
};

interface Stream {
  push(e: WatchEvent): void;
  end(): void;
}

export class FakeApi {
  rv = 0;
  readonly objects = new Map<string, KubeObject>();
  log: Array<{ rv: number; event: WatchEvent }> = [];
  compactedTo = 0;
  readonly calls: string[] = [];
  readonly #streams = new Set<Stream>();
  /** The next watch opens fail with a transport error this many times. */
  failWatches = 0;
  /** The next watches open (200) and then deliver an ERROR 500 event at once, this many times. */
  erroringWatches = 0;
  /** Lists and watches without a namespace are forbidden (namespace-scoped RBAC). */
  namespacedOnly = false;

  put(name: string, data: Record<string, string>, namespace = 'ns'): void {
    const id = `${namespace}/${name}`;
    const type = this.objects.has(id) ? 'MODIFIED' : 'ADDED';
    const obj: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace, resourceVersion: String(++this.rv), managedFields: [{ manager: 'm' }] },
      data,
    };
    this.objects.set(id, obj);
    this.#emit({ type, object: structuredClone(obj) });
  }

  del(name: string, namespace = 'ns'): void {
    const id = `${namespace}/${name}`;
    const obj = this.objects.get(id);
    if (!obj) return;
    this.objects.delete(id);
    const gone = structuredClone(obj);
    gone.metadata!.resourceVersion = String(++this.rv);
    this.#emit({ type: 'DELETED', object: gone });
  }

  /** Forgets the event history: watches from older versions get 410. */
  compact(): void {
    this.compactedTo = this.rv;
    this.log = [];
  }

  /** Ends every open watch cleanly (as a server timeout or a dropped connection does). */
  endStreams(): void {
    for (const s of this.#streams) s.end();
    this.#streams.clear();
  }

  /**
   * Open watches go silent without ending (a server or proxy holding the connection and sending nothing):
   * later events reach only watches opened afterwards.
   */
  stallStreams(): void {
    this.#streams.clear();
  }

  /** Sends an ERROR 410 event on every open watch. */
  expireStreams(): void {
    for (const s of this.#streams)
      s.push({ type: 'ERROR', object: { code: 410, reason: 'Expired', message: 'too old' } });
  }

  get openStreams(): number {
    return this.#streams.size;
  }

  #emit(event: WatchEvent): void {
    this.log.push({ rv: this.rv, event });
    for (const s of this.#streams) s.push(event);
  }

  /** The subset of KubeClient the live cache uses. */
  client(): KubeClient {
    const list = async (
      _info: ResourceInfo,
      opts: { namespace?: string; limit?: number; continue?: string },
    ): Promise<ListResult> => {
      this.calls.push(
        `list${opts.namespace ? ` ns=${opts.namespace}` : ''}${opts.continue ? ` continue=${opts.continue}` : ''}`,
      );
      if (this.namespacedOnly && !opts.namespace) {
        throw new ApiError('configmaps', 'list', 403, {
          reason: 'Forbidden',
          message: 'cannot list cluster-wide',
        });
      }
      const all = [...this.objects.values()].filter(
        (o) => !opts.namespace || o.metadata?.namespace === opts.namespace,
      );
      const start = Number(opts.continue ?? 0);
      const end = opts.limit ? start + opts.limit : all.length;
      return {
        items: structuredClone(all.slice(start, end)),
        resourceVersion: String(this.rv),
        continue: end < all.length ? String(end) : undefined,
      };
    };
    const watch = async (
      _info: ResourceInfo,
      opts: { resourceVersion?: string; signal?: AbortSignal },
    ): Promise<AsyncIterable<WatchEvent>> => {
      this.calls.push(`watch@${opts.resourceVersion}`);
      if (this.failWatches > 0) {
        this.failWatches--;
        throw new ApiError('configmaps', 'watch', 0, undefined, new Error('ECONNREFUSED'));
      }
      const from = Number(opts.resourceVersion ?? 0);
      if (from < this.compactedTo) {
        throw new ApiError('configmaps', 'watch', 410, {
          reason: 'Expired',
          message: 'too old resource version',
        });
      }
      if (this.erroringWatches > 0) {
        this.erroringWatches--;
        const error = {
          type: 'ERROR',
          object: { kind: 'Status', code: 500, message: 'internal error' },
        } as unknown as WatchEvent;
        return (async function* () {
          yield error;
        })();
      }
      const queue: WatchEvent[] = this.log.filter((l) => l.rv > from).map((l) => l.event);
      let wake: (() => void) | undefined;
      let ended = false;
      const stream: Stream = {
        push: (e) => {
          queue.push(e);
          wake?.();
        },
        end: () => {
          ended = true;
          wake?.();
        },
      };
      this.#streams.add(stream);
      opts.signal?.addEventListener('abort', () => stream.end(), { once: true });
      const streams = this.#streams;
      return (async function* () {
        try {
          for (;;) {
            while (queue.length > 0) yield queue.shift()!;
            if (ended) return;
            await new Promise<void>((resolve) => (wake = resolve));
            wake = undefined;
          }
        } finally {
          streams.delete(stream);
        }
      })();
    };
    return { list, watch, server: 'fake' } as unknown as KubeClient;
  }
}

/** Runs pending macrotasks until `cond` holds (fails after many turns; never measures time). */
export async function until(cond: () => boolean, what: string, turns = 2000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (cond()) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  throw new Error(`never happened: ${what}`);
}
