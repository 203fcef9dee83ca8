/**
 * Field validation as kube-apiserver does it (KEP-2885, GA in 1.27): the `fieldValidation` query value
 * decides what happens to fields the kind's schema does not declare and to duplicate fields in a JSON body.
 * - `Strict`: 400 BadRequest, `strict decoding error: unknown field "spec.foo", duplicate field "x"`.
 * - `Warn` (the default when absent): the write succeeds; each problem is a `Warning: 299 - "..."` header.
 * - `Ignore`: the write succeeds silently.
 * Unknown fields are never stored in any mode (the typed decode drops them; CRDs prune them).
 * Other values are 422 Invalid with a FieldValueNotSupported cause, as `dryRun` values other than `All`.
 * Where a schema has `x-kubernetes-preserve-unknown-fields: true`, or the kind has no schema, every field
 * is kept.
 */
import type { Schema, SchemaCatalog } from '../schema/index.js';
import { ApiError, type StatusCause } from './errors.js';
import type { Json, JsonMap } from './types.js';
import { isMap } from './types.js';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** The options kind named in 422 messages per verb (CreateOptions.meta.k8s.io ...). */
export type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions';

/**
 * The 422 of an options kind's validation (apimachinery `errors.NewInvalid` of
 * `{Group: meta.k8s.io, Kind}` with name ""): each error a cause with its field, the message the errors
 * aggregated (one: `field: detail`; more: `[a, b]`).
 */
function optionsInvalid(kind: OptionsKind, causes: StatusCause[]): ApiError {
  const each = causes.map((c) => `${c.field}: ${c.message}`);
  const what = each.length === 1 ? each[0]! : `[${each.join(', ')}]`;
  return new ApiError(422, 'Invalid', `${kind}.meta.k8s.io "" is invalid: ${what}`, {
    group: 'meta.k8s.io',
    kind,
    causes,
  });
}

function notSupported(field: string, shown: string, supported: string[]): StatusCause {
  const detail = `Unsupported value: ${shown}: supported values: ${supported.map((s) => `"${s}"`).join(', ')}`;
  return { reason: 'FieldValueNotSupported', message: detail, field };
}

/**
 * Checks the write's options as apimachinery's ValidateCreateOptions / ValidateUpdateOptions /
 * ValidatePatchOptions do, in their order: for an apply patch (`apply`), a `fieldManager` is required
 * first; then `dryRun` (ValidateDryRun) and `fieldValidation` (ValidateFieldValidation). Every error is
 * one cause of a single 422.
 */
export function writeOptions(
  query: URLSearchParams,
  kind: OptionsKind,
  apply = false,
): { dryRun: boolean; validation: FieldValidation } {
  const causes: StatusCause[] = [];
  if (apply && !query.get('fieldManager'))
    causes.push({
      reason: 'FieldValueRequired',
      message: 'Required value: is required for apply patch',
      field: 'fieldManager',
    });
  const dry = query.getAll('dryRun');
  if (dry.some((d) => d !== 'All'))
    causes.push(notSupported('dryRun', `[]string{${dry.map((d) => JSON.stringify(d)).join(', ')}}`, ['All']));
  const fv = query.get('fieldValidation') ?? '';
  if (fv !== '' && fv !== 'Ignore' && fv !== 'Warn' && fv !== 'Strict')
    causes.push(notSupported('fieldValidation', JSON.stringify(fv), ['', 'Ignore', 'Strict', 'Warn']));
  if (causes.length > 0) throw optionsInvalid(kind, causes);
  return { dryRun: dry.length > 0, validation: fv === '' ? 'Warn' : (fv as FieldValidation) };
}

function childPath(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/**
 * Drops the fields `schema` does not declare from `value` (in place) and returns their paths, written as
 * the real server writes them (`spec.template.spec.containers[0].foo`).
 *
 * `structural` (custom resources): the CRD's own schema is pruned as apiextensions-apiserver prunes a
 * structural schema (pkg/apiserver/schema/pruning/algorithm.go `Prune`/`prune`/`skipPrune`):
 * - an object schema without `properties` and `additionalProperties` keeps no field (`type: object` alone
 *   prunes everything below it);
 * - `x-kubernetes-preserve-unknown-fields: true` keeps unknown fields, but the fields it declares are still
 *   pruned by their own schemas;
 * - `x-kubernetes-embedded-resource: true` keeps `apiVersion`, `kind` and `metadata` of the embedded object;
 * - an array without `items` prunes every field of its objects.
 * Where the walk enters a built-in definition (`$ref`: the root's ObjectMeta), the built-in rules apply:
 * the typed decode drops undeclared fields, and a definition without properties (FieldsV1, RawExtension)
 * is kept whole.
 */
export function pruneUnknown(
  value: Json,
  schemas: SchemaCatalog,
  schema: Schema | undefined,
  path = '',
  out: string[] = [],
  structural = false,
): string[] {
  walk(value, schemas, schema, path, out, structural, false, !structural);
  return out;
}

/** `keep`: inside a preserved array (`skipPrune` of its items): unknown fields stay. */
function walk(
  value: Json,
  schemas: SchemaCatalog,
  schema: Schema | undefined,
  path: string,
  out: string[],
  structural: boolean,
  keep: boolean,
  builtin: boolean,
): void {
  const inCrd = structural && !(schema && typeof schema['$ref'] === 'string');
  const s = schemas.resolve(schema);
  if (!s) {
    if (inCrd && !keep) pruneAll(value, path, out);
    return;
  }
  const preserve = keep || s['x-kubernetes-preserve-unknown-fields'] === true;
  if (preserve && !inCrd) return;
  if (Array.isArray(value)) {
    const items = schemas.items(s);
    if (items || inCrd)
      value.forEach((v, i) =>
        walk(v, schemas, items, `${path}[${i}]`, out, inCrd, inCrd && preserve, builtin),
      );
    return;
  }
  if (!isMap(value)) return;
  const props = s['properties'];
  const extra = s['additionalProperties'];
  const embedded = inCrd && s['x-kubernetes-embedded-resource'] === true;
  for (const [k, v] of Object.entries(value)) {
    if (embedded && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) continue;
    let declared = isMap(props as Json) ? (props as Record<string, Schema>)[k] : undefined;
    // A built-in kind's definitions also declare the fields Kubernetes 1.34 added (the release we serve).
    if (!declared && builtin) declared = schemas.newerProperty(s, k);
    if (declared) walk(v, schemas, declared, childPath(path, k), out, inCrd, false, builtin);
    else if (typeof extra === 'object' && extra !== null)
      walk(v, schemas, extra as Schema, childPath(path, k), out, inCrd, false, builtin);
    else if (preserve || extra === true) continue;
    else if (!inCrd && props === undefined && extra === undefined) continue;
    else {
      out.push(childPath(path, k));
      delete (value as JsonMap)[k];
    }
  }
}

/**
 * Drops, in place, the nulls a custom resource's structural schema neither allows (`nullable`) nor
 * defaults, as apiextensions-apiserver does right after pruning (pkg/apiserver/schema/defaulting/
 * prunenulls.go `PruneNonNullableNullsWithoutDefaults`): map entries only (a null list item stays), found
 * by `properties` then `additionalProperties`; a null with a default is left for defaulting. Built-in
 * definitions reached by `$ref` (the root's metadata) and the root's type meta are not walked.
 */
export function pruneNonNullableNulls(value: Json, schemas: SchemaCatalog, schema: Schema | undefined): void {
  nulls(value, schemas, schema, true);
}

function nulls(value: Json, schemas: SchemaCatalog, schema: Schema | undefined, root: boolean): void {
  if (!schema || typeof schema['$ref'] === 'string') return;
  if (Array.isArray(value)) {
    const items = schemas.items(schema);
    for (const v of value) nulls(v, schemas, items, false);
    return;
  }
  if (!isMap(value)) return;
  const props = isMap(schema['properties'] as Json) ? (schema['properties'] as Record<string, Schema>) : {};
  const extra = schema['additionalProperties'];
  for (const [k, v] of Object.entries(value)) {
    if (root && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) continue;
    const field = props[k] ?? (isMap(extra as Json) ? (extra as Schema) : undefined);
    if (v === null && field && field['nullable'] !== true && field['default'] === undefined)
      delete (value as JsonMap)[k];
    else nulls(v, schemas, field, false);
  }
}

/** `prune(x, nil)`: a value without a schema keeps no object field, at any depth. */
function pruneAll(value: Json, path: string, out: string[]): void {
  if (Array.isArray(value)) value.forEach((v, i) => pruneAll(v, `${path}[${i}]`, out));
  else if (isMap(value))
    for (const k of Object.keys(value)) {
      out.push(childPath(path, k));
      delete (value as JsonMap)[k];
    }
}

/**
 * Duplicate keys of a JSON text, as paths (`metadata.name`), found by a scan of the text: JSON.parse keeps
 * the last value silently, the real server's strict decoder reports them.
 */
export function duplicateFields(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  const ws = (): void => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const str = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (path: string): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const seen = new Set<string>();
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        const key = str();
        const p = childPath(path, key);
        if (seen.has(key)) out.push(p);
        seen.add(key);
        ws();
        i++; // ':'
        value(p);
        ws();
        if (text[i++] !== ',') return;
      }
    } else if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (let n = 0; ; n++) {
        value(`${path}[${n}]`);
        ws();
        if (text[i++] !== ',') return;
      }
    } else if (c === '"') str();
    else while (i < text.length && !/[,\]}\s]/.test(text[i]!)) i++;
  };
  try {
    value('');
  } catch {
    return out;
  }
  return out;
}

/** Problems as the real server words them, in the order it reports them (unknown, then duplicate). */
export function fieldProblems(unknown: string[], duplicates: string[]): string[] {
  return [...unknown.map((p) => `unknown field "${p}"`), ...duplicates.map((p) => `duplicate field "${p}"`)];
}

/** One `Warning` header line (RFC 7234 warn-code 299, agent "-"), as the real server sends each problem. */
export function warningLine(problem: string): string {
  return `299 - ${JSON.stringify(problem)}`;
}
