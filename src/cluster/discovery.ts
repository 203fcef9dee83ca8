/**
 * Discovery: which resource types a cluster serves (group, version, kind, plural, namespaced, verbs).
 *
 * Order of sources: memory, then the on-disk cache when younger than `ttlMs` (default 5 min), then the API
 * (`/api`, `/api/v1`, `/apis`, `/apis/<group>/<version>` in parallel). The disk cache is one JSON file per
 * cluster under `$XDG_CACHE_HOME/kubectl-gitops/discovery/` (else `~/.cache/...`), written atomically.
 * A lookup that misses (e.g. a CRD created mid-run) refreshes from the API once before answering
 * "not served"; concurrent refreshes share one round of requests. Subresources ("pods/status") are left out.
 * Group versions that fail to answer (e.g. an unavailable aggregated API) are skipped and listed in
 * `failedGroupVersions`.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { GitopsError } from '../common/index.js';
import type { KubeClient } from './client.js';
import { groupKind, parseApiVersion } from './types.js';
import type { ResourceInfo } from './types.js';

export interface DiscoveryOptions {
  /** Directory of the per-cluster files. Default `<user cache dir>/kubectl-gitops/discovery`. */
  cacheDir?: string;
  /** How long a disk cache file is trusted. Default 5 minutes; 0 disables the disk cache. */
  ttlMs?: number;
  /** Wall clock for file ages (ms since epoch). Default Date.now. */
  now?: () => number;
  /** Parallel group-version requests. Default 8. */
  concurrency?: number;
}

export interface DiscoveredResource extends ResourceInfo {
  /**
   * This is the version client-go's `ServerPreferredResources` picks for the resource (what Argo CD's
   * cluster cache watches): the group's preferred version when it serves the resource, else the first
   * version the group lists that does. So a kind served only at an older version of its group (one CRD
   * of the group at v1alpha1 while another is at v1) has a preferred version too.
   */
  preferred: boolean;
}

/** Bumped when the meaning of a cached field changes: older disk caches are fetched afresh. */
const DISK_FORMAT = 2;

interface DiscoveryData {
  format?: number;
  server: string;
  fetchedAt: number;
  resources: DiscoveredResource[];
  failedGroupVersions: string[];
}

export function userCacheDir(): string {
  return process.env['XDG_CACHE_HOME'] || join(homedir(), '.cache');
}

export function defaultDiscoveryCacheDir(): string {
  return join(userCacheDir(), 'kubectl-gitops', 'discovery');
}

interface ApiResourceList {
  groupVersion?: string;
  resources?: Array<{ name: string; kind: string; namespaced: boolean; verbs?: string[] }>;
}
interface ApiGroupList {
  groups?: Array<{
    name: string;
    versions: Array<{ version: string }>;
    preferredVersion?: { version: string };
  }>;
}

export class Discovery {
  readonly #client: KubeClient;
  readonly #cacheFile: string;
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #concurrency: number;
  #data: DiscoveryData | undefined;
  #inflight: Promise<DiscoveryData> | undefined;

  constructor(client: KubeClient, options: DiscoveryOptions = {}) {
    this.#client = client;
    const file = client.server.replace(/^https?:\/\//, '').replace(/[^A-Za-z0-9.-]+/g, '_');
    this.#cacheFile = join(options.cacheDir ?? defaultDiscoveryCacheDir(), `${file}.json`);
    this.#ttlMs = options.ttlMs ?? 5 * 60_000;
    this.#now = options.now ?? Date.now;
    this.#concurrency = options.concurrency ?? 8;
  }

  get cacheFile(): string {
    return this.#cacheFile;
  }

  /** Every served resource type (all versions), from memory, a fresh disk cache or the API. */
  async resources(signal?: AbortSignal): Promise<DiscoveredResource[]> {
    if (this.#data) return this.#data.resources;
    const fromDisk = await this.#readDisk();
    if (!fromDisk) return this.refresh(signal);
    this.#data ??= fromDisk;
    return this.#data.resources;
  }

  get failedGroupVersions(): string[] {
    return this.#data?.failedGroupVersions ?? [];
  }

  /** Fetches discovery from the API (sharing an in-flight fetch) and rewrites the disk cache. */
  async refresh(signal?: AbortSignal): Promise<DiscoveredResource[]> {
    this.#inflight ??= this.#fetch(signal).finally(() => (this.#inflight = undefined));
    this.#data = await this.#inflight;
    return this.#data.resources;
  }

  /**
   * The served type of `group`/`kind` (at `version`, or the preferred version), refreshing once on a miss;
   * undefined when the server does not serve it.
   */
  async lookup(
    gvk: { group: string; kind: string; version?: string },
    signal?: AbortSignal,
  ): Promise<ResourceInfo | undefined> {
    const find = (rs: DiscoveredResource[]): DiscoveredResource | undefined => {
      const same = rs.filter((r) => r.group === gvk.group && r.kind === gvk.kind);
      return gvk.version
        ? same.find((r) => r.version === gvk.version)
        : (same.find((r) => r.preferred) ?? same[0]);
    };
    const hit = find(await this.resources(signal));
    if (hit) return toResourceInfo(hit);
    const fresh = find(await this.refresh(signal));
    return fresh ? toResourceInfo(fresh) : undefined;
  }

  /** Like `lookup`, but a type the server does not serve is a GitopsError naming it. */
  async resolve(
    gvk: { group: string; kind: string; version?: string },
    signal?: AbortSignal,
  ): Promise<ResourceInfo> {
    const info = await this.lookup(gvk, signal);
    if (info) return info;
    const name = gvk.version
      ? `${gvk.group ? `${gvk.group}/` : ''}${gvk.version}/${gvk.kind}`
      : groupKind(gvk);
    throw new GitopsError(
      `failed to find in discovery: the server at ${this.#client.server} does not serve this kind`,
      {
        subject: `kind ${name}`,
        hint: 'is its CustomResourceDefinition installed?',
      },
    );
  }

  #version: Promise<string> | undefined;

  /**
   * The server's version as Argo CD hands it to renderers: `GET /version`'s gitVersion read as apimachinery
   * `version.ParseGeneric` reads it (leading "v" and any suffix such as "+k3s1" or "-gke.100" dropped:
   * "1.28.4"); once per connection. gitops-engine `GetServerVersion` then repository.go `parseKubeVersion`.
   */
  serverVersion(signal?: AbortSignal): Promise<string> {
    this.#version ??= this.#client
      .request<{ gitVersion?: string }>({
        verb: 'discovery',
        method: 'GET',
        path: '/version',
        subject: 'discovery /version',
        ...(signal ? { signal } : {}),
      })
      .then((v) => genericVersion(v.gitVersion ?? ''));
    this.#version.catch(() => (this.#version = undefined));
    return this.#version;
  }

  /**
   * The API versions Argo CD hands to renderers (util/argo `APIResourcesToStrings` with kinds, over
   * gitops-engine `GetAPIResources`: every served version of every resource that can be listed and
   * watched): "group/version" and "group/version/Kind" ("v1", "v1/ConfigMap"), sorted, no duplicates.
   */
  async apiVersions(signal?: AbortSignal): Promise<string[]> {
    const resources = await this.resources(signal);
    // Worked out once per discovery answer: every app's render asks (100 apps sorted these 200 strings,
    // each comparison encoding both, 100 times: 77 ms of a 1,000-object diff's profile, issue 31).
    if (this.#apiVersions?.of !== resources) {
      const out = new Set<string>();
      for (const r of resources) {
        if (!r.verbs.includes('list') || !r.verbs.includes('watch')) continue;
        const gv = r.group ? `${r.group}/${r.version}` : r.version;
        out.add(gv).add(`${gv}/${r.kind}`);
      }
      // Byte order of the UTF-8 text (Go's sort.Strings), each string encoded once.
      const list = [...out].map((s) => ({ s, b: Buffer.from(s) }));
      list.sort((x, y) => Buffer.compare(x.b, y.b));
      this.#apiVersions = { of: resources, list: list.map((x) => x.s) };
    }
    return [...this.#apiVersions.list];
  }

  #apiVersions: { of: DiscoveredResource[]; list: string[] } | undefined;

  /** `resolve` by an object's apiVersion and kind. */
  resolveApiVersionKind(apiVersion: string, kind: string, signal?: AbortSignal): Promise<ResourceInfo> {
    return this.resolve({ ...parseApiVersion(apiVersion), kind }, signal);
  }

  async #readDisk(): Promise<DiscoveryData | undefined> {
    if (this.#ttlMs <= 0) return undefined;
    try {
      const data = JSON.parse(await readFile(this.#cacheFile, 'utf8')) as DiscoveryData;
      const age = this.#now() - data.fetchedAt;
      if (data.format !== DISK_FORMAT || data.server !== this.#client.server) return undefined;
      if (!(age >= 0 && age < this.#ttlMs)) return undefined;
      return data;
    } catch {
      return undefined; // missing or unreadable: fetch
    }
  }

  async #writeDisk(data: DiscoveryData): Promise<void> {
    if (this.#ttlMs <= 0) return;
    try {
      await mkdir(join(this.#cacheFile, '..'), { recursive: true });
      const tmp = `${this.#cacheFile}.${process.pid}.tmp`;
      await writeFile(tmp, JSON.stringify(data));
      await rename(tmp, this.#cacheFile);
    } catch {
      // the cache is an optimisation: an unwritable cache dir must not fail the run
    }
  }

  async #fetch(signal?: AbortSignal): Promise<DiscoveryData> {
    const get = <T>(path: string): Promise<T> =>
      this.#client.request<T>({
        verb: 'discovery',
        method: 'GET',
        path,
        subject: `discovery ${path}`,
        signal,
      });
    const [core, groups] = await Promise.all([
      get<{ versions?: string[] }>('/api'),
      get<ApiGroupList>('/apis'),
    ]);
    /** Per group, its versions in the order the server lists them, and its preferred version. */
    const jobs: Array<{ group: string; version: string; path: string }> = [];
    const groupVersions = new Map<string, { versions: string[]; preferred: string | undefined }>();
    const coreVersions = core.versions ?? [];
    groupVersions.set('', {
      versions: coreVersions,
      preferred: coreVersions.includes('v1') ? 'v1' : undefined,
    });
    for (const v of coreVersions) jobs.push({ group: '', version: v, path: `/api/${v}` });
    for (const g of groups.groups ?? []) {
      const versions = g.versions.map((v) => v.version);
      groupVersions.set(g.name, { versions, preferred: g.preferredVersion?.version ?? versions[0] });
      for (const v of versions) jobs.push({ group: g.name, version: v, path: `/apis/${g.name}/${v}` });
    }
    const resources: DiscoveredResource[] = [];
    const failedGroupVersions: string[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let job = jobs[next++]; job; job = jobs[next++]) {
        let list: ApiResourceList;
        try {
          list = await get<ApiResourceList>(job.path);
        } catch (err) {
          if (signal?.aborted) throw err;
          failedGroupVersions.push(job.group ? `${job.group}/${job.version}` : job.version);
          continue;
        }
        for (const r of list.resources ?? []) {
          if (r.name.includes('/')) continue;
          resources.push({
            group: job.group,
            version: job.version,
            kind: r.kind,
            plural: r.name,
            namespaced: r.namespaced,
            verbs: r.verbs ?? [],
            preferred: false,
          });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.#concurrency, jobs.length) }, worker));
    markPreferred(resources, groupVersions);
    const order = (r: DiscoveredResource): string => `${r.group}/${r.version}/${r.kind}`;
    resources.sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
    const data: DiscoveryData = {
      format: DISK_FORMAT,
      server: this.#client.server,
      fetchedAt: this.#now(),
      resources,
      failedGroupVersions,
    };
    await this.#writeDisk(data);
    return data;
  }
}

/**
 * A version as apimachinery `ParseGeneric(...).String()` writes it: the dotted numbers after an optional
 * "v" (at least two), anything after them dropped; "" when there are none.
 */
export function genericVersion(text: string): string {
  const m = /^v?([0-9]+(?:\.[0-9]+)+)/.exec(text.trim());
  return m
    ? m[1]!
        .split('.')
        .map((n) => String(Number(n)))
        .join('.')
    : '';
}

/** The request-relevant part of a discovered resource. */
export function toResourceInfo(r: DiscoveredResource): ResourceInfo {
  return {
    group: r.group,
    version: r.version,
    kind: r.kind,
    plural: r.plural,
    namespaced: r.namespaced,
    verbs: r.verbs,
  };
}

/**
 * Sets `preferred` as client-go's `ServerPreferredResources` chooses (discovery_client.go): per group
 * and resource, the group's preferred version when it serves the resource, else the first listed version
 * that serves it.
 */
function markPreferred(
  resources: DiscoveredResource[],
  groupVersions: ReadonlyMap<string, { versions: string[]; preferred: string | undefined }>,
): void {
  const byResource = new Map<string, DiscoveredResource[]>();
  for (const r of resources) {
    const id = `${r.group}/${r.plural}`;
    const same = byResource.get(id);
    if (same) same.push(r);
    else byResource.set(id, [r]);
  }
  for (const same of byResource.values()) {
    const g = groupVersions.get(same[0]!.group);
    const rank = (r: DiscoveredResource): number => {
      if (r.version === g?.preferred) return -1;
      const i = g?.versions.indexOf(r.version) ?? -1;
      return i < 0 ? Number.MAX_SAFE_INTEGER : i;
    };
    let best = same[0]!;
    for (const r of same) if (rank(r) < rank(best)) best = r;
    best.preferred = true;
  }
}
