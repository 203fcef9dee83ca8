/**
 * `ignoreDifferences`: validation, compilation, matching and application (Argo CD's ignore normalizer).
 *
 * - Matching: `group` and `kind` are globs (`*`, `?`, `[..]`, `{a,b}`; an absent group is the core group
 *   ""), `name` and `namespace` exact when given.
 * - `jsonPointers` (RFC 6901, `~1` = "/", `~0` = "~") remove the field; a missing path is not an error.
 * - `jqPathExpressions` (jq.ts subset) run as `del(expr)`; an expression failing at run time is skipped.
 * - `managedFieldsManagers`: compare.ts drops the fields those managers own (live managedFields) from both
 *   sides; this module only collects the manager names.
 * - After removals, empty maps/lists and list elements that became empty maps are removed (as Argo CD).
 * The `--ignore-differences-file` is YAML with the shape of `spec.ignoreDifferences`: a list of rules, or
 * a map with an `ignoreDifferences` list. Bad input is a UsageError naming the file (or app) and entry.
 */
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { UsageError, globMatch } from '../common/index.js';
import { JqRuntimeError, jqDelete, parseJq } from './jq.js';
import type { JqProgram } from './jq.js';
import { groupOf, isMap } from './paths.js';
import type { IgnoreDifference, Json, JsonMap } from './types.js';

export interface CompiledIgnore {
  rule: IgnoreDifference;
  pointers: string[][];
  jq: JqProgram[];
  managers: string[];
}

export interface ResourceIdentity {
  group: string;
  kind: string;
  name: string;
  namespace: string;
}

const FIELDS = [
  'group',
  'kind',
  'name',
  'namespace',
  'jsonPointers',
  'jqPathExpressions',
  'managedFieldsManagers',
];

/** Checks untyped input (an app spec's or a file's) and returns typed rules; `subject` names the source. */
export function validateIgnoreDifferences(value: unknown, subject: string): IgnoreDifference[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value))
    throw new UsageError('failed to read ignoreDifferences: expected a list', { subject });
  return value.map((entry: unknown, i) => {
    const where = `${subject} (ignoreDifferences[${i}])`;
    if (!isMap(entry)) throw new UsageError('failed to read rule: expected a map', { subject: where });
    const unknown = Object.keys(entry).filter((k) => !FIELDS.includes(k));
    if (unknown.length > 0) {
      throw new UsageError(`failed to read rule: unknown field ${JSON.stringify(unknown[0])}`, {
        subject: where,
      });
    }
    const str = (k: string): string | undefined => {
      const v = entry[k];
      if (v === undefined || v === null) return undefined;
      if (typeof v !== 'string')
        throw new UsageError(`failed to read rule: ${k} must be a string`, { subject: where });
      return v;
    };
    const list = (k: string): string[] | undefined => {
      const v = entry[k];
      if (v === undefined || v === null) return undefined;
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
        throw new UsageError(`failed to read rule: ${k} must be a list of strings`, { subject: where });
      }
      return v as string[];
    };
    const kind = str('kind');
    if (!kind) throw new UsageError('failed to read rule: kind is required', { subject: where });
    const rule: IgnoreDifference = { kind };
    const group = str('group');
    if (group !== undefined) rule.group = group;
    const name = str('name');
    if (name) rule.name = name;
    const namespace = str('namespace');
    if (namespace) rule.namespace = namespace;
    const pointers = list('jsonPointers');
    if (pointers) rule.jsonPointers = pointers;
    const jq = list('jqPathExpressions');
    if (jq) rule.jqPathExpressions = jq;
    const managers = list('managedFieldsManagers');
    if (managers) rule.managedFieldsManagers = managers;
    compileIgnoreDifferences([rule], where);
    return rule;
  });
}

/** Parses the YAML text of an ignore-differences file. */
export function parseIgnoreDifferences(text: string, file: string): IgnoreDifference[] {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    const msg = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new UsageError(`failed to parse YAML: ${msg}`, { subject: file });
  }
  if (isMap(doc)) doc = doc['ignoreDifferences'] ?? null;
  return validateIgnoreDifferences(doc, file);
}

/** Reads `--ignore-differences-file`. */
export async function loadIgnoreDifferencesFile(file: string): Promise<IgnoreDifference[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : String(err);
    throw new UsageError(`failed to read: ${why}`, { subject: file });
  }
  return parseIgnoreDifferences(text, file);
}

/** RFC 6901 pointer to segments; "" (the whole document) yields []. */
export function parsePointer(pointer: string, subject: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) {
    throw new UsageError(`failed to parse: JSON pointer must start with "/"`, {
      subject: `${subject} jsonPointer ${JSON.stringify(pointer)}`,
    });
  }
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

const cache = new WeakMap<readonly IgnoreDifference[], CompiledIgnore[]>();

/** Compiles rules (parsing pointers and jq once; cached per array). Throws UsageError on bad syntax. */
export function compileIgnoreDifferences(
  rules: readonly IgnoreDifference[],
  subject = 'ignoreDifferences',
): CompiledIgnore[] {
  const hit = cache.get(rules);
  if (hit) return hit;
  const out = rules.map((rule) => ({
    rule,
    pointers: (rule.jsonPointers ?? []).map((p) => parsePointer(p, subject)),
    jq: (rule.jqPathExpressions ?? []).map(parseJq),
    managers: rule.managedFieldsManagers ?? [],
  }));
  cache.set(rules, out);
  return out;
}

/** The annotation by which a resource names ignored fields of its own (Argo CD 3.6). */
export const IGNORE_DIFFERENCES_ANNOTATION = 'argocd.argoproj.io/ignore-differences';

/**
 * The rules the targets' own `argocd.argoproj.io/ignore-differences` annotations name (Argo CD 3.6
 * util/argo/diff ExtractIgnoreDifferencesFromAnnotations): YAML with a `jsonPointers` list, a rule for that
 * resource alone (its group, kind, name and namespace). A value that does not parse or names no pointer is
 * passed over, as Argo CD passes it over. Argo CD appends them to the app's rules (resolvedIgnores).
 */
export function annotationIgnores(
  objects: ReadonlyArray<{
    apiVersion?: string;
    kind?: string;
    metadata?: { name?: string; namespace?: string; annotations?: Record<string, string> };
  }>,
): IgnoreDifference[] {
  const out: IgnoreDifference[] = [];
  for (const obj of objects) {
    const value = obj.metadata?.annotations?.[IGNORE_DIFFERENCES_ANNOTATION];
    if (typeof value !== 'string' || value === '') continue;
    let parsed: unknown;
    try {
      parsed = parse(value);
    } catch {
      continue;
    }
    const pointers = isMap(parsed as Json) ? (parsed as JsonMap)['jsonPointers'] : undefined;
    if (!Array.isArray(pointers) || pointers.length === 0 || !pointers.every((p) => typeof p === 'string'))
      continue;
    const apiVersion = obj.apiVersion ?? '';
    out.push({
      group: apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '',
      kind: obj.kind ?? '',
      name: obj.metadata?.name ?? '',
      namespace: obj.metadata?.namespace ?? '',
      jsonPointers: pointers as string[],
    });
  }
  return out;
}

/** Argo CD's `glob.Match` (gobwas): `*` also matches the core group "", so `group: "*"` covers core kinds. */
function glob(pattern: string, text: string): boolean {
  return globMatch(pattern, text);
}

/** A resource's group, kind, name and namespace, as the rules match them. */
export function identityOf(obj: JsonMap): ResourceIdentity {
  const meta = isMap(obj['metadata']) ? obj['metadata'] : {};
  return {
    group: groupOf(obj['apiVersion']),
    kind: typeof obj['kind'] === 'string' ? obj['kind'] : '',
    name: typeof meta['name'] === 'string' ? meta['name'] : '',
    namespace: typeof meta['namespace'] === 'string' ? meta['namespace'] : '',
  };
}

/** The rules that apply to a resource. */
export function matchIgnores(rules: readonly CompiledIgnore[], id: ResourceIdentity): CompiledIgnore[] {
  return rules.filter(
    ({ rule }) =>
      glob(rule.group ?? '', id.group) &&
      glob(rule.kind, id.kind) &&
      (!rule.name || rule.name === id.name) &&
      (!rule.namespace || rule.namespace === id.namespace),
  );
}

function removePointer(doc: JsonMap, segs: string[]): void {
  if (segs.length === 0) return;
  let cur: Json | undefined = doc;
  for (const s of segs.slice(0, -1)) {
    if (isMap(cur)) cur = cur[s];
    else if (Array.isArray(cur) && /^\d+$/.test(s)) cur = cur[Number(s)];
    else return;
  }
  const last = segs[segs.length - 1]!;
  if (isMap(cur)) delete cur[last];
  else if (Array.isArray(cur) && /^\d+$/.test(last) && Number(last) < cur.length) cur.splice(Number(last), 1);
}

/**
 * Applies the pointer and jq removals of the matched rules to `doc`, in place, then drops the empty maps
 * and lists left (the comparison's way); `keepEmpty`: as Argo CD's ignore normalizer alone, which removes
 * the paths and nothing else (RespectIgnoreDifferences, respect.ts).
 */
export function applyIgnores(doc: JsonMap, matched: readonly CompiledIgnore[], keepEmpty = false): void {
  let changed = false;
  for (const m of matched) {
    for (const p of m.pointers) {
      removePointer(doc, p);
      changed = true;
    }
    for (const program of m.jq) {
      // jqDelete computes every path before deleting anything, so a run-time error leaves doc untouched.
      try {
        jqDelete(program, doc);
        changed = true;
      } catch (err) {
        if (!(err instanceof JqRuntimeError)) throw err;
      }
    }
  }
  if (changed && !keepEmpty) removeEmptyObjects(doc);
}

/** Argo CD's removeEmptyObjects: drops empty maps/lists and list elements that are empty maps. */
function removeEmptyObjects(obj: JsonMap): void {
  for (const [k, v] of Object.entries(obj)) {
    if (isMap(v)) {
      removeEmptyObjects(v);
      if (Object.keys(v).length === 0) delete obj[k];
    } else if (Array.isArray(v)) {
      const kept = v.filter((item) => {
        if (!isMap(item)) return true;
        removeEmptyObjects(item);
        return Object.keys(item).length > 0;
      });
      if (kept.length === 0) delete obj[k];
      else obj[k] = kept;
    }
  }
}
