/**
 * Repository URLs without secrets. `redactURL` strips userinfo (`https://user:token@host/x` ->
 * `https://host/x`) and is applied to every URL that reaches a message, an error or a cache key;
 * `redactText` does the same to free text such as a tool's stderr. `repoKey` is the identity of a
 * repository for mirrors and cache keys: the redacted URL with a trailing "/" and ".git" removed.
 */
import { createHash } from 'node:crypto';

const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi;

export function redactURL(url: string): string {
  return url.replace(USERINFO, '$1');
}

export function redactText(text: string): string {
  return text.replace(USERINFO, '$1');
}

export function repoKey(url: string): string {
  return redactURL(url)
    .trim()
    .replace(/\/+$/, '')
    .replace(/\.git$/, '');
}

/** A file-system-safe, readable directory name for a repository: "<last segments>-<hash>". */
export function repoDirName(url: string): string {
  const key = repoKey(url);
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 16);
  const readable = key
    .replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')
    .split(/[/:]/)
    .filter(Boolean)
    .slice(-2)
    .join('_')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .slice(0, 60);
  return `${readable || 'repo'}-${hash}`;
}

// How Argo CD compares repository URLs (`git.NormalizeGitURL`) is a project rule first: one copy, in src/apps.
export { normalizeGitURL } from '../apps/index.js';
