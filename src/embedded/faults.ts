/**
 * Fault injection and request counting, driven from test code.
 *
 * Guarantees:
 * - Randomness (error rates) comes from one seeded PRNG (mulberry32), so a test with a fixed seed sees the
 *   same sequence of failures for the same sequence of requests.
 * - Faults apply to resource requests (not discovery) and are checked before the handler runs: a failed
 *   request changes nothing.
 * - Counters count every request that reached the router, including failed and injected ones.
 */
import { seededRandom } from '../util/random.js';
import type { Verb } from './types.js';

export interface ErrorRule {
  /** Verb to fail ('*' or undefined: every verb). */
  verb?: Verb | '*';
  /** Resource to fail, as "deployments.apps" / "configmaps" (undefined: every resource). */
  resource?: string;
  /** Probability in [0, 1] that a matching request fails. Default 1. */
  rate?: number;
  /**
   * HTTP status: 500 (InternalError), 503, 429 (TooManyRequests, with Retry-After), 409 (Conflict:
   * the optimistic-concurrency answer a write gets when another writer moved the object first), or 404
   * (`404 page not found`, as a proxy in front of the server, or the server while a kind's storage is
   * rebuilt, can answer for a path that is served). Default 500.
   */
  status?: 404 | 409 | 429 | 500 | 503;
  /** Retry-After seconds sent with 429/503. Default 1. */
  retryAfterSeconds?: number;
  /** Fail at most this many requests, then the rule is spent. */
  times?: number;
}

export interface InjectedError {
  status: number;
  retryAfterSeconds?: number;
}

/** Hooks the server registers so the injector can act on open watches. */
export interface WatchControl {
  /** Destroys every open watch connection (no final event); returns how many were dropped. */
  dropAll(): number;
  /** Ends every open watch with an ERROR 410 Expired event and forgets the event history. */
  expireAll(): number;
}

export class FaultInjector {
  private random: () => number;
  private rules: Array<ErrorRule & { left: number }> = [];
  private latency = new Map<string, number>();
  private goneWatches = 0;
  /** Set by the server. */
  watchControl: WatchControl | undefined;

  constructor(seed = 1) {
    this.random = seededRandom(seed);
  }

  /** Re-seeds the PRNG and removes every fault. */
  reset(seed = 1): void {
    this.random = seededRandom(seed);
    this.rules = [];
    this.latency.clear();
    this.goneWatches = 0;
  }

  /** Adds latency (ms) before every request of a verb ('*' = all). 0 removes it. */
  setLatency(ms: number, verb: Verb | '*' = '*'): void {
    if (ms > 0) this.latency.set(verb, ms);
    else this.latency.delete(verb);
  }

  /** Fails matching requests; returns a function that removes the rule. */
  failRequests(rule: ErrorRule): () => void {
    const entry = { ...rule, left: rule.times ?? Number.POSITIVE_INFINITY };
    this.rules.push(entry);
    return () => {
      this.rules = this.rules.filter((r) => r !== entry);
    };
  }

  /** Drops every open watch connection now (the client sees the stream end abruptly). */
  dropWatches(): number {
    return this.watchControl?.dropAll() ?? 0;
  }

  /**
   * Forces 410 Gone: open watches end with an ERROR 410 event, and any watch from a resourceVersion older
   * than now is answered with 410 (clients must relist).
   */
  expireWatches(): number {
    return this.watchControl?.expireAll() ?? 0;
  }

  /** The next `n` watch requests get 410 Gone whatever their resourceVersion. */
  goneOnNextWatches(n = 1): void {
    this.goneWatches += n;
  }

  /** @internal Consumed by the watch handler. */
  takeForcedGone(): boolean {
    if (this.goneWatches <= 0) return false;
    this.goneWatches--;
    return true;
  }

  /** @internal Latency to apply before a request. */
  latencyFor(verb: Verb): number {
    return this.latency.get(verb) ?? this.latency.get('*') ?? 0;
  }

  /** @internal The injected error for this request, if any (consumes randomness only for matching rules). */
  errorFor(verb: Verb, resource: string): InjectedError | undefined {
    for (const r of this.rules) {
      if (r.left <= 0) continue;
      if (r.verb && r.verb !== '*' && r.verb !== verb) continue;
      if (r.resource && r.resource !== resource) continue;
      if (this.random() >= (r.rate ?? 1)) continue;
      r.left--;
      const status = r.status ?? 500;
      return status === 500 || status === 409 || status === 404
        ? { status }
        : { status, retryAfterSeconds: r.retryAfterSeconds ?? 1 };
    }
    return undefined;
  }
}

export interface StatsSnapshot {
  total: number;
  byVerb: Record<string, number>;
  /** Keyed "deployments.apps", "configmaps"; discovery requests are counted under "discovery". */
  byResource: Record<string, number>;
  /** Keyed "list deployments.apps". */
  byVerbResource: Record<string, number>;
}

const WRITE_VERBS = ['create', 'update', 'patch', 'delete', 'deletecollection'];

export class RequestStats {
  private totalCount = 0;
  private readonly verbs = new Map<string, number>();
  private readonly resources = new Map<string, number>();
  private readonly pairs = new Map<string, number>();
  private readonly open = new Map<string, number>();
  private readonly peaks = new Map<string, number>();
  private readonly agents = new Map<string, number>();
  private readonly userAgentPaths: string[] = [];

  get total(): number {
    return this.totalCount;
  }

  count(verb: string, resource?: string): number {
    if (resource === undefined) return this.verbs.get(verb) ?? 0;
    return this.pairs.get(`${verb} ${resource}`) ?? 0;
  }

  /**
   * Write requests (create, update, patch, delete, deletecollection; dry runs included) since the last
   * reset: what "a refused sync writes nothing" is checked against.
   */
  writes(): number {
    return WRITE_VERBS.reduce((n, verb) => n + this.count(verb), 0);
  }

  /** @internal Called by the router once per request. */
  record(verb: string, resource: string): void {
    this.totalCount++;
    this.verbs.set(verb, (this.verbs.get(verb) ?? 0) + 1);
    this.resources.set(resource, (this.resources.get(resource) ?? 0) + 1);
    const k = `${verb} ${resource}`;
    this.pairs.set(k, (this.pairs.get(k) ?? 0) + 1);
  }

  /**
   * @internal Called for every request that reaches the server (discovery and refused ones included), as
   * kube-apiserver's audit log records each request's userAgent.
   */
  recordUserAgent(userAgent: string, method: string, path: string): void {
    this.agents.set(userAgent, (this.agents.get(userAgent) ?? 0) + 1);
    if (this.userAgentPaths.length < 10_000) this.userAgentPaths.push(`${userAgent} ${method} ${path}`);
  }

  /** Requests per User-Agent header ("" when absent) since the server started. */
  userAgents(): Map<string, number> {
    return new Map(this.agents);
  }

  /** "<user-agent> <METHOD> <path>" of each request (the first 10000), for tests that check every path. */
  requestsByUserAgent(): string[] {
    return [...this.userAgentPaths];
  }

  /** @internal Called by the router when a request of `verb` starts; returns the call that ends it. */
  begin(verb: string): () => void {
    const n = (this.open.get(verb) ?? 0) + 1;
    this.open.set(verb, n);
    this.peaks.set(verb, Math.max(n, this.peaks.get(verb) ?? 0));
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.open.set(verb, (this.open.get(verb) ?? 1) - 1);
    };
  }

  /** The most requests of `verb` the server was answering at once since the last reset (clients' concurrency). */
  peakInFlight(verb: string): number {
    return this.peaks.get(verb) ?? 0;
  }

  snapshot(): StatsSnapshot {
    return {
      total: this.totalCount,
      byVerb: Object.fromEntries(this.verbs),
      byResource: Object.fromEntries(this.resources),
      byVerbResource: Object.fromEntries(this.pairs),
    };
  }

  reset(): void {
    this.totalCount = 0;
    this.verbs.clear();
    this.resources.clear();
    this.pairs.clear();
    this.peaks.clear();
  }
}
