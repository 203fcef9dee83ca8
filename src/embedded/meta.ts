/**
 * Helpers of the write pipeline: canonical JSON for change detection, the default field manager, client-sent
 * managedFields, the dryRun parameter and generateName suffixes.
 */
import { badRequest } from './errors.js';
import type { KObject, ManagedFieldsEntry } from './types.js';
import { isMap } from './types.js';

/** Sorted-key JSON, so key order never counts as a change. */
export function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (isMap(v)) {
    return `{${Object.keys(v)
      .sort()
      .filter((k) => v[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stableJson(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/**
 * The real server's default field manager (apiserver pkg/endpoints/handlers/create.go
 * `prefixFromUserAgent`): the User-Agent up to the first "/", without the characters Go's
 * unicode.IsPrint rejects, cut before a character that would pass 128 bytes of UTF-8
 * (FieldManagerMaxLength). kubectl's `kubectl/v1.32.0 (linux/amd64) ...` gives "kubectl", ours
 * "kubectl-gitops".
 */
export function managerFromUserAgent(ua: string): string {
  let m = '';
  let bytes = 0;
  for (const ch of ua.split('/')[0] ?? '') {
    if (!PRINTABLE.test(ch)) continue;
    const size = Buffer.byteLength(ch);
    if (bytes + size > 128) break;
    m += ch;
    bytes += size;
  }
  return m || 'unknown';
}

/**
 * managedFields a client sent with an update or patch replace the stored ones when they differ (kubectl's
 * client-side-apply upgrade does this); `[{}]` clears them; absent or `[]` keeps them, as on a real server.
 */
export function withClientManagedFields(old: KObject, sent: unknown): KObject {
  if (!Array.isArray(sent) || sent.length === 0) return old;
  if (stableJson(sent) === stableJson(old.metadata.managedFields ?? [])) return old;
  const valid = sent.filter(
    (e): e is ManagedFieldsEntry => isMap(e) && typeof e['manager'] === 'string' && isMap(e['fieldsV1']),
  );
  return { ...old, metadata: { ...old.metadata, managedFields: valid } };
}

export function isDryRun(q: URLSearchParams): boolean {
  const v = q.getAll('dryRun');
  if (v.some((x) => x !== 'All')) throw badRequest(`Invalid dry run value: ${v.join(',')}`);
  return v.length > 0;
}

export function randomSuffix(): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  let s = '';
  for (let i = 0; i < 5; i++) s += alphabet[Math.floor(Math.random() * alphabet.length)];
  return s;
}

/**
 * ObjectMeta's fields in the order kube-apiserver encodes them: a built-in kind's in the Go struct's
 * field order (k8s.io/apimachinery meta/v1 ObjectMeta), a custom resource's sorted by name (it is stored
 * as an unstructured map, which Go's JSON encoder writes with sorted keys). Clients that keep the order
 * of what they read (a diff's JSON document) see the same on both servers.
 */
const OBJECT_META_ORDER = [
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
];
export function orderedMetadata<T extends object>(meta: T, custom: boolean): T {
  const keys = Object.keys(meta);
  const rank = (k: string): number => {
    const i = OBJECT_META_ORDER.indexOf(k);
    return i < 0 ? OBJECT_META_ORDER.length : i;
  };
  keys.sort(custom ? undefined : (a, b) => rank(a) - rank(b));
  return Object.fromEntries(keys.map((k) => [k, (meta as Record<string, unknown>)[k]])) as T;
}
