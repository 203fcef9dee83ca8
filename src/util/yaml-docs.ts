// Over 400 lines: one idea, reading Kubernetes objects from YAML (both parsers, kept text, the parse cache); next cut: the parse cache.
/**
 * Reads Kubernetes objects from YAML or JSON text: multi-document YAML, JSON, and `List` kinds (kind List or
 * any *List with `items`) flattened; items of a typed list (SecretList) without a kind take it from the list. Every object remembers where it came from (file and 0-based document
 * index, plus the item index inside a List) so errors can name it. Empty documents are skipped.
 * Malformed YAML is a UsageError naming the file, document and line.
 *
 * `keepText(kind, path)`: plain scalars at the paths it accepts keep their source text as a string
 * (`1.10` stays "1.10", `010` "010", `1e3` "1e3", `true` "true"), for fields the object's schema types as
 * strings; YAML 1.2 would read them as numbers or booleans. Nulls (`~`, `null`, empty) stay null (unset).
 * Standard input is read once and remembered, so several readers of "-" see the same text.
 *
 * Parsed files are remembered per process, and, once `setParseCacheDir` names a directory, between runs:
 * the key is a sha256 of the file's whole text and the code that parses it (not its name: a parse names its
 * file only in errors, which are never kept, and in `file`, set to the reader's name on every hit; so one
 * text read from two checkouts, as `diff --base` reads its two sides, is parsed once) (this module's and the
 * `keepText` rule's source files, by URL, size and mtime: a bundle's chunk names carry a content hash), so
 * an entry can only be used for the same text read by the same code, never stale. Files holding a Secret
 * (or an object without a kind, or with `stringData`) are never written to the cache; unreadable or malformed entries are misses; write failures are ignored.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isMap, isScalar, isSeq, parseAllDocuments } from 'yaml';
import type { Tags } from 'yaml';
import { UsageError } from '../common/index.js';
import { fastParseDocuments } from './fast-yaml.js';
import { codeStamp } from './fs.js';
import type { KubeObject } from '../common/index.js';

export type { KubeObject } from '../common/index.js';

export interface SourcedObject {
  object: KubeObject;
  file: string;
  /** 0-based index of the YAML document in the file. */
  doc: number;
  /** Index inside a List document, when the object came from one. */
  item?: number;
}

/** "file.yaml (document 2)" or "file.yaml (document 1, item 4)": the subject of errors about an object. */
export function describeSource(s: Pick<SourcedObject, 'file' | 'doc' | 'item'>): string {
  return `${s.file} (document ${s.doc + 1}${s.item !== undefined ? `, item ${s.item + 1}` : ''})`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Which plain scalars keep their source text: by the object's kind, the path of the field and the
 * object's apiVersion ("" when it has none).
 */
export type KeepScalarText = (
  kind: string,
  path: readonly (string | number)[],
  apiVersion: string,
) => boolean;

/** Puts the source text of kept plain non-string scalars of `node` into `value` (its toJS result). */
function restoreScalarText(
  node: unknown,
  value: unknown,
  type: { kind: string; apiVersion: string },
  path: (string | number)[],
  keep: KeepScalarText,
): void {
  const visit = (child: unknown, container: Record<string | number, unknown>, key: string | number): void => {
    const childPath = [...path, key];
    if (isScalar(child)) {
      const v = container[key];
      if (child.type === 'PLAIN' && v !== null && typeof v !== 'string' && typeof v !== 'object') {
        if (typeof child.source === 'string' && keep(type.kind, childPath, type.apiVersion))
          container[key] = child.source;
      }
    } else restoreScalarText(child, container[key], type, childPath, keep);
  };
  if (isMap(node) && isObject(value)) {
    for (const pair of node.items) {
      if (!isScalar(pair.key)) continue;
      const key = String(pair.key.value);
      if (Object.prototype.hasOwnProperty.call(value, key)) visit(pair.value, value, key);
    }
  } else if (isSeq(node) && Array.isArray(value)) {
    node.items.forEach((item, i) => visit(item, value as unknown as Record<number, unknown>, i));
  }
}

/**
 * `restoreScalarText` on the fast path's reading (fast-yaml.ts): `raw` is the same document read with every
 * plain scalar as its text (non-string values only ever come from single-line plain scalars).
 */
function restoreRawText(
  raw: unknown,
  value: unknown,
  type: { kind: string; apiVersion: string },
  path: (string | number)[],
  keep: KeepScalarText,
): void {
  const visit = (child: unknown, container: Record<string | number, unknown>, key: string | number): void => {
    const v = container[key];
    if (v !== null && typeof v !== 'string' && typeof v !== 'object') {
      if (typeof child === 'string' && keep(type.kind, [...path, key], type.apiVersion))
        container[key] = child;
    } else restoreRawText(child, v, type, [...path, key], keep);
  };
  if (Array.isArray(value) && Array.isArray(raw))
    value.forEach((_, i) => visit(raw[i], value as unknown as Record<number, unknown>, i));
  else if (isObject(value) && isObject(raw))
    for (const key of Object.keys(value)) visit(raw[key], value, key);
}

/** A document's node tree as restoreDocumentText walks it: `yaml`'s, or the fast path's raw reading. */
interface TextTree {
  items(contents: unknown): unknown[] | undefined;
  restore: typeof restoreScalarText;
}

const YAML_TREE: TextTree = {
  items: (contents) => {
    const items = isMap(contents) ? contents.get('items', true) : undefined;
    return isSeq(items) ? items.items : undefined;
  },
  restore: restoreScalarText,
};

const RAW_TREE: TextTree = {
  items: (contents) =>
    isObject(contents) && Array.isArray(contents['items']) ? contents['items'] : undefined,
  restore: restoreRawText,
};

/**
 * `restoreScalarText` for one parsed YAML document: `contents` is its node tree, `value` its toJS result
 * (an object, or a List whose items are objects, each by its own kind or the list's).
 */
export function restoreDocumentText(
  contents: unknown,
  value: Record<string, unknown>,
  keep: KeepScalarText,
  tree: TextTree = YAML_TREE,
): void {
  const kind = typeof value['kind'] === 'string' ? value['kind'] : '';
  const apiVersion = typeof value['apiVersion'] === 'string' ? value['apiVersion'] : '';
  const items = kind.endsWith('List') && Array.isArray(value['items']) ? tree.items(contents) : undefined;
  if (items) {
    items.forEach((item, i) => {
      const object = (value['items'] as unknown[])[i];
      const own = (k: string): string =>
        isObject(object) && typeof object[k] === 'string' ? (object[k] as string) : '';
      // A typed list (ApplicationList) names its items' kind and apiVersion; a plain List does not.
      const typed = kind !== 'List';
      tree.restore(
        item,
        object,
        {
          kind: own('kind') || (typed ? kind.slice(0, -'List'.length) : ''),
          apiVersion: own('apiVersion') || (typed ? apiVersion : ''),
        },
        [],
        keep,
      );
    });
  } else tree.restore(contents, value, { kind, apiVersion }, [], keep);
}

/** Objects read from a file, and how many non-empty documents held them (a `List` of no items counts). */
export interface KubeDocuments {
  objects: SourcedObject[];
  documents: number;
}

/**
 * How Kubernetes tools read YAML, so we read manifests as Argo CD and kubectl do: sigs.k8s.io/yaml over
 * go-yaml v2 (go.yaml.in/yaml/v2 resolve.go), YAML 1.1 scalars: `y`/`n`/`yes`/`no`/`on`/`off` (any of their
 * cases go-yaml lists) are booleans, `0755` octal, `0x1F` hex, `0b101` binary, `1_000` an int, `<<` merges;
 * no base-60 numbers (go-yaml "purposefully" does not read them). Unquoted timestamps stay strings here
 * (go-yaml reads them as times, which sigs.k8s.io/yaml writes back as RFC 3339: a known difference).
 */
export const KUBE_YAML_OPTIONS = {
  schema: 'yaml-1.1',
  customTags: (tags: Tags): Tags =>
    tags.filter((t) =>
      typeof t === 'string'
        ? !['timestamp', 'intTime', 'floatTime'].includes(t)
        : t.tag !== 'tag:yaml.org,2002:timestamp' && !('format' in t && t.format === 'TIME'),
    ),
} as const;

/** Parses `text` (the contents of `file`) into objects. */
export function parseKubeObjects(text: string, file: string, keepText?: KeepScalarText): SourcedObject[] {
  return parseKubeDocuments(text, file, keepText).objects;
}

/** Parses `text` into objects and counts its non-empty documents (an empty `List` is one document). */
export function parseKubeDocuments(text: string, file: string, keepText?: KeepScalarText): KubeDocuments {
  const fast = fastParseDocuments(text, keepText !== undefined);
  if (fast)
    return kubeDocuments(
      fast.values.map((value, i) => ({ value, contents: fast.texts?.[i] })),
      file,
      keepText,
      RAW_TREE,
    );
  const docs = parseAllDocuments(text, { ...KUBE_YAML_OPTIONS, prettyErrors: true, uniqueKeys: false });
  const list = Array.isArray(docs) ? docs : [docs];
  list.forEach((doc, index) => {
    const error = doc.errors[0];
    if (error) {
      const line = error.linePos?.[0]?.line;
      throw new UsageError(
        `failed to parse YAML${line ? ` at line ${line}` : ''}: ${error.message.split('\n')[0]}`,
        {
          subject: `${file} (document ${index + 1})`,
        },
      );
    }
  });
  return kubeDocuments(
    list.map((doc) => ({ value: doc.toJS({ maxAliasCount: 1000 }) as unknown, contents: doc.contents })),
    file,
    keepText,
    YAML_TREE,
  );
}

/** The objects of a file's documents (read by either parser: `tree` says which). */
function kubeDocuments(
  docs: { value: unknown; contents: unknown }[],
  file: string,
  keepText: KeepScalarText | undefined,
  tree: TextTree,
): KubeDocuments {
  const out: SourcedObject[] = [];
  let documents = 0;
  docs.forEach(({ value, contents }, index) => {
    if (value === null || value === undefined) return;
    documents++;
    if (!isObject(value)) {
      throw new UsageError('not a Kubernetes object (expected a mapping with apiVersion and kind)', {
        subject: `${file} (document ${index + 1})`,
      });
    }
    const kind = typeof value['kind'] === 'string' ? value['kind'] : '';
    if (keepText) restoreDocumentText(contents, value, keepText, tree);
    if (kind.endsWith('List') && Array.isArray(value['items'])) {
      // A typed list from the API (SecretList, ...) omits each item's kind and apiVersion: the list names them.
      const itemKind = kind === 'List' ? undefined : kind.slice(0, -'List'.length);
      (value['items'] as unknown[]).forEach((item, itemIndex) => {
        if (!isObject(item)) {
          throw new UsageError('List item is not an object', {
            subject: describeSource({ file, doc: index, item: itemIndex }),
          });
        }
        const object = item as KubeObject;
        if (itemKind && object.kind === undefined) {
          object.kind = itemKind;
          object.apiVersion ??= value['apiVersion'] as string | undefined;
        }
        out.push({ object, file, doc: index, item: itemIndex });
      });
      return;
    }
    out.push({ object: value as KubeObject, file, doc: index });
  });
  return { objects: out, documents };
}

/** Reads and parses a file; "-" reads standard input. A missing file is a UsageError naming it. */
export async function readKubeObjects(file: string, keepText?: KeepScalarText): Promise<SourcedObject[]> {
  return (await readKubeDocuments(file, keepText)).objects;
}

/**
 * Parses already done in this process, by text and `keepText`: a command that reads one file twice (its
 * Applications, then its ApplicationSets) parses it once. Callers get their own copy.
 */
const parsed = new Map<string, { keepText: KeepScalarText | undefined; result: KubeDocuments }>();

const PARSE_CACHE_FORMAT = 1;
let parseCacheDir: string | undefined;
/** The module URL of each `keepText` rule that may be cached (see registerKeepTextSource). */
const keepSources = new WeakMap<KeepScalarText, string>();

/** Forgets this process's parses (tests: the next read goes to the disk cache or the parser). */
export function forgetParsedFiles(): void {
  parsed.clear();
}

/** Keeps parsed files under `dir` between runs (undefined: only in memory). */
export function setParseCacheDir(dir: string | undefined): void {
  parseCacheDir = dir;
}

/** Names the module (`import.meta.url`) a `keepText` rule lives in, so its parses can be cached on disk. */
export function registerKeepTextSource(keepText: KeepScalarText, moduleUrl: string): void {
  keepSources.set(keepText, moduleUrl);
}

function diskKey(text: string, keepText: KeepScalarText | undefined): string | undefined {
  if (!parseCacheDir) return undefined;
  const keepUrl = keepText ? keepSources.get(keepText) : '';
  if (keepUrl === undefined) return undefined;
  const own = codeStamp(import.meta.url);
  const keep = keepUrl ? codeStamp(keepUrl) : '';
  if (!own || (keepUrl && !keep)) return undefined;
  return createHash('sha256')
    .update(JSON.stringify([PARSE_CACHE_FORMAT, own, keep, keepText?.name ?? '']))
    .update('\0')
    .update(text)
    .digest('hex');
}

function readCached(key: string, file: string): KubeDocuments | undefined {
  try {
    const entry = JSON.parse(readFileSync(join(parseCacheDir!, key.slice(0, 2), `${key}.json`), 'utf8')) as {
      format?: unknown;
      documents?: unknown;
      objects?: unknown;
    };
    if (entry.format !== PARSE_CACHE_FORMAT || typeof entry.documents !== 'number') return undefined;
    if (!Array.isArray(entry.objects)) return undefined;
    const objects: SourcedObject[] = [];
    for (const o of entry.objects as { object?: unknown; doc?: unknown; item?: unknown }[]) {
      if (!isObject(o.object) || typeof o.doc !== 'number') return undefined;
      objects.push({
        object: o.object as KubeObject,
        file,
        doc: o.doc,
        ...(typeof o.item === 'number' ? { item: o.item } : {}),
      });
    }
    return { documents: entry.documents, objects };
  } catch {
    return undefined;
  }
}

function writeCached(key: string, result: KubeDocuments): void {
  // Never a Secret's values on disk: not for a Secret, nor for an object that does not say what it is.
  if (
    result.objects.some((so) => so.object.kind === 'Secret' || !so.object.kind || 'stringData' in so.object)
  )
    return;
  const path = join(parseCacheDir!, key.slice(0, 2), `${key}.json`);
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    // Owner-only, as the manifest cache beside it (src/source/cache.ts): app files can hold what others may not read.
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const objects = result.objects.map(({ object, doc, item }) => ({
      object,
      doc,
      ...(item !== undefined ? { item } : {}),
    }));
    writeFileSync(tmp, JSON.stringify({ format: PARSE_CACHE_FORMAT, documents: result.documents, objects }), {
      mode: 0o600,
    });
    renameSync(tmp, path);
  } catch {
    // the cache is an optimisation
  }
}

function parseOnce(text: string, file: string, keepText: KeepScalarText | undefined): KubeDocuments {
  const key = text;
  let hit = parsed.get(key);
  if (!hit || hit.keepText !== keepText) {
    const onDisk = diskKey(text, keepText);
    let result = onDisk ? readCached(onDisk, file) : undefined;
    if (!result) {
      result = parseKubeDocuments(text, file, keepText);
      if (onDisk) writeCached(onDisk, result);
    }
    hit = { keepText, result };
    parsed.set(key, hit);
  }
  return {
    documents: hit.result.documents,
    objects: hit.result.objects.map((so) => ({ ...so, file, object: structuredClone(so.object) })),
  };
}

/** A failed read of `file` as the UsageError every reader throws. */
function readError(file: string, err: unknown): UsageError {
  const code = (err as NodeJS.ErrnoException).code;
  const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : String(err);
  return new UsageError(`failed to read: ${why}`, { subject: file });
}

/** readKubeObjects, also counting the file's non-empty documents. */
export async function readKubeDocuments(file: string, keepText?: KeepScalarText): Promise<KubeDocuments> {
  let text: string;
  try {
    text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
  } catch (err) {
    throw readError(file, err);
  }
  return parseOnce(text, file === '-' ? '<stdin>' : file, keepText);
}

/**
 * The text of a file read synchronously (never "-"): for callers that read many small files, where
 * `fs.readFileSync` costs a tenth of `fs/promises.readFile` (one system call each, no promise per step;
 * 13 ms against 120 ms for 1,000 Application files). A failed read is readKubeDocuments's UsageError.
 */
export function readTextSync(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw readError(file, err);
  }
}

/** readKubeDocuments of a text already read (`readTextSync`): the same parse, caches and result. */
export function parseKubeText(text: string, file: string, keepText?: KeepScalarText): KubeDocuments {
  return parseOnce(text, file, keepText);
}

let stdinText: Promise<string> | undefined;

/** Standard input, read once per process (Applications and ApplicationSets of `-f -` come from one read). */
function readStdin(): Promise<string> {
  stdinText ??= (async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  })();
  return stdinText;
}
