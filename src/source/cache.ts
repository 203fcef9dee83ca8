/**
 * The manifest cache: rendered objects of one source on disk, so a second run at the same commit renders
 * nothing (and, for Git sources, fetches nothing).
 *
 * Key = sha256 of (format version, repository key without credentials, resolved SHA, path, chart, the
 * source's directory/kustomize/helm options, Helm's defaults (app name, destination namespace) and the SHAs
 * of `ref` sources it reads). Each entry also records the tool that rendered it and that tool's fingerprint
 * (path, size, mtime of the binary): an entry whose tool changed since is a miss.
 * Location: `<cacheRoot>/manifests/<2 hex>/<key>.json`; written atomically (temp file + rename).
 * A corrupt or unreadable entry is a miss and is rewritten by the next `put`, never an error; write
 * failures are ignored too (the cache is an optimisation).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
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
}

export class ManifestCache {
  readonly stats = { hits: 0, misses: 0, writes: 0 };

  constructor(private readonly options: ManifestCacheOptions) {}

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
    return entry;
  }

  async put(key: string, entry: CacheEntry): Promise<void> {
    const path = this.path(key);
    const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      // Synchronously, as get(): three fs/promises round trips cost more than the write itself.
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(tmp, JSON.stringify({ format: FORMAT, ...entry }));
      renameSync(tmp, path);
      this.stats.writes++;
    } catch {
      // A read-only or full cache directory only costs speed.
    }
  }
}
