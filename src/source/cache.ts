/**
 * The manifest cache: rendered objects of one source on disk, so a second run at the same commit renders
 * nothing (and, for Git sources, fetches nothing).
 *
 * Key = sha256 of (format version, repository key without credentials, resolved SHA, or instead the Git
 * object ids of what the source reads (tree-key.ts), path, chart, the source's directory/kustomize/helm
 * options, Helm's defaults (app name, destination namespace), the SHAs of `ref` sources it reads, and the
 * destination cluster's version and API versions). Composed by service.ts. Each entry also records the tool that rendered it and that tool's fingerprint
 * (path, size, mtime of the binary): an entry whose tool changed since is a miss.
 * Location: `<cacheRoot>/manifests/<2 hex>/<key>.json`; written atomically (temp file + rename).
 * A corrupt or unreadable entry is a miss and is rewritten by the next `put`, never an error; write
 * failures are ignored too (the cache is an optimisation).
 *
 * Secrets at rest: entries hold rendered objects, Secrets included. Every directory of the cache is created
 * mode 0700 and every file 0600 (explicit modes, whatever the umask). `secureCacheRoot` runs once per root
 * and process: it creates the root 0700 and, when the root was not 0700 yet (a cache written by an older
 * version), fixes the modes of everything under `manifests/` and of the `git/` directory and its mirrors
 * (whose own files are then unreachable by others). No credential is ever part of a key, a path or an entry.
 *
 * Expiry (Argo CD's repo-server keeps manifests `--repo-cache-expiration`, default 24 h): a hit renews its
 * entry's mtime; a process that has run for `expirationMs / 24` (an hour by default: a continuous loop, never
 * a one-shot command) removes, at most once per such period and in the background, the entries not written
 * or hit for `expirationMs`. Without it a loop over a monorepo wrote one entry per app per commit for good
 * (1,000 apps: about 4 MB per commit; found while soaking the loop, bench/soak.bench.ts).
 */
import { createHash } from 'node:crypto';
import { readdir, stat, unlink } from 'node:fs/promises';
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { KubeObject } from '../util/yaml-docs.js';
import type { SourceType } from './render/types.js';

const FORMAT = 1;

/** `$XDG_CACHE_HOME/kubectl-gitops`, else `~/.cache/kubectl-gitops`. */
export function defaultCacheRoot(env: Record<string, string | undefined> = process.env): string {
  const xdg = env['XDG_CACHE_HOME'];
  return join(xdg && xdg.startsWith('/') ? xdg : join(homedir(), '.cache'), 'kubectl-gitops');
}

export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;

const secured = new Set<string>();

function fixModes(dir: string, depth: number): void {
  chmodSync(dir, DIR_MODE);
  if (depth === 0) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) fixModes(path, depth - 1);
    else if (entry.isFile()) chmodSync(path, FILE_MODE);
  }
}

/**
 * Creates `root` mode 0700, and fixes the modes of a cache left world-readable by an older version (see
 * the header). Once per root per process; failures (a read-only cache) are ignored like write failures.
 */
export function secureCacheRoot(root: string): void {
  if (secured.has(root)) return;
  secured.add(root);
  try {
    mkdirSync(root, { recursive: true, mode: DIR_MODE });
    if ((statSync(root).mode & 0o777) === DIR_MODE) return;
    chmodSync(root, DIR_MODE);
    for (const [sub, depth] of [
      ['manifests', 2],
      ['git', 1],
    ] as const) {
      try {
        fixModes(join(root, sub), depth);
      } catch {
        // absent
      }
    }
  } catch {
    // The cache is an optimisation: a read-only home only costs speed.
  }
}

export interface CacheEntry {
  type: SourceType;
  tool: string;
  toolFingerprint: string;
  objects: KubeObject[];
}

export function cacheKey(parts: Record<string, unknown>): string {
  return createHash('sha256')
    .update(JSON.stringify({ format: FORMAT, ...parts }))
    .digest('hex');
}

export interface ManifestCacheOptions {
  /** `<cacheRoot>`: entries go to `<cacheRoot>/manifests`. */
  root: string;
  /** Current fingerprint of a tool ("" for none). */
  fingerprint(tool: string): Promise<string>;
  /** Entries neither written nor hit this long are removed (see the header). Default 24 h. */
  expirationMs?: number;
  /** Milliseconds now (tests). Default Date.now. */
  now?: () => number;
}

export const DEFAULT_MANIFEST_EXPIRATION_MS = 24 * 3600_000;

export class ManifestCache {
  readonly stats = { hits: 0, misses: 0, writes: 0, expired: 0 };
  readonly #expirationMs: number;
  readonly #now: () => number;
  /** When this cache was made, then when it last swept. */
  #lastSweep: number;
  #sweeping: Promise<void> | undefined;

  constructor(private readonly options: ManifestCacheOptions) {
    secureCacheRoot(options.root);
    this.#expirationMs = options.expirationMs ?? DEFAULT_MANIFEST_EXPIRATION_MS;
    this.#now = options.now ?? Date.now;
    this.#lastSweep = this.#now();
  }

  /** Removes the entries neither written nor hit for the expiration (what `put` starts once a period). */
  sweep(): Promise<void> {
    this.#sweeping ??= (async () => {
      const dir = join(this.options.root, 'manifests');
      const before = this.#now() - this.#expirationMs;
      try {
        for (const sub of await readdir(dir)) {
          for (const name of await readdir(join(dir, sub)).catch(() => [] as string[])) {
            const path = join(dir, sub, name);
            try {
              if ((await stat(path)).mtimeMs < before) {
                await unlink(path);
                this.stats.expired++;
              }
            } catch {
              // gone meanwhile (another process swept it)
            }
          }
        }
      } catch {
        // no cache directory yet, or unreadable: nothing to sweep
      } finally {
        this.#sweeping = undefined;
      }
    })();
    return this.#sweeping;
  }

  path(key: string): string {
    return join(this.options.root, 'manifests', key.slice(0, 2), `${key}.json`);
  }

  async get(key: string): Promise<CacheEntry | undefined> {
    let entry: CacheEntry & { format?: number };
    try {
      // Synchronously, as manifests are read (render/directory.ts): far cheaper than fs/promises.
      entry = JSON.parse(readFileSync(this.path(key), 'utf8')) as CacheEntry & { format?: number };
    } catch {
      this.stats.misses++;
      return undefined;
    }
    const valid =
      entry !== null &&
      typeof entry === 'object' &&
      entry.format === FORMAT &&
      Array.isArray(entry.objects) &&
      typeof entry.tool === 'string' &&
      typeof entry.type === 'string' &&
      entry.objects.every((o) => o !== null && typeof o === 'object' && !Array.isArray(o)) &&
      entry.toolFingerprint === (await this.options.fingerprint(entry.tool));
    if (!valid) {
      this.stats.misses++;
      return undefined;
    }
    this.stats.hits++;
    try {
      const now = new Date(this.#now());
      utimesSync(this.path(key), now, now); // renewed: a hit entry does not expire
    } catch {
      // read-only cache
    }
    return entry;
  }

  async put(key: string, entry: CacheEntry): Promise<void> {
    const path = this.path(key);
    const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      // Synchronously, as get(): three fs/promises round trips cost more than the write itself.
      mkdirSync(dirname(path), { recursive: true, mode: DIR_MODE });
      writeFileSync(tmp, JSON.stringify({ format: FORMAT, ...entry }), { mode: FILE_MODE });
      renameSync(tmp, path);
      this.stats.writes++;
    } catch {
      // A read-only or full cache directory only costs speed.
    }
    if (this.#now() - this.#lastSweep >= this.#expirationMs / 24) {
      this.#lastSweep = this.#now();
      void this.sweep();
    }
  }
}
