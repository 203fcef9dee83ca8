/**
 * A server-side apply patch on its way in: `decodeApplyPatch` (YAML decode, kind/version and managedFields
 * checks, typed conversion) before the merge, `strictYamlDecode` (duplicate keys by fieldValidation) after.
 *
 * The typed conversion is what kube-apiserver's field manager does before it
 * merges an applied configuration (k8s.io/apimachinery pkg/util/managedfields/internal/structuredmerge.go
 * `Apply`: `typeConverter.ObjectToTyped(patchObj)`), with the schema rules of kube-openapi's
 * pkg/schemaconv (`parseObject`) and the walk of structured-merge-diff's typed/validate.go
 * (`visitMapItems`).
 *
 * A field the kind's schema does not declare fails the whole request, whatever `fieldValidation` says and
 * with or without dryRun: 500, no reason, message
 * `failed to create typed patch object (<ns>/<name>; <group>/<version>, Kind=<Kind>): .spec.foo: field not
 * declared in schema` (several: `errors:` then one indented line each). Namespace and name are the patch
 * body's own (empty when the body omits them).
 *
 * Which fields are declared:
 * - an object schema with `properties`: those; `additionalProperties` (a schema, or true) admits any other
 *   key; without it, another key is undeclared;
 * - an object schema with neither `properties` nor `additionalProperties` (FieldsV1, RawExtension, a CRD's
 *   bare `type: object`) admits anything ("deduced": the CRD's pruning then drops it silently);
 * - `x-kubernetes-preserve-unknown-fields: true` admits any key at that node and in every object schema
 *   written inline below it (not through a `$ref`);
 * - in a custom resource, `x-kubernetes-embedded-resource: true` declares `apiVersion`, `kind` and a
 *   typed `metadata` (ObjectMeta), as apiextensions-apiserver's OpenAPI builder adds them
 *   (pkg/controller/openapi/builder/builder.go `addEmbeddedProperties`); the root's `metadata` is always
 *   ObjectMeta, so `metadata.foo` is undeclared even under a preserving root.
 *
 * Paths are structured-merge-diff's: `.field`, `[name="web"]` for an item of an associative list (keys
 * sorted), `[0]` for an item of another list. In one map the real walk stops at the first undeclared key it
 * meets, in Go's random map order; here the order is the body's (the same answer when a map has one).
 */
import type { Document } from 'yaml';
import { LineCounter, isNode, isScalar, parseDocument, visit } from 'yaml';
import type { Schema, SchemaCatalog } from '../schema/index.js';
import { listShapeAt } from '../schema/index.js';
import { ApiError, badRequest } from './errors.js';
import type { FieldValidation } from './field-validation.js';
import { warningLine } from './field-validation.js';
import type { Json, KObject } from './types.js';
import { isMap } from './types.js';

export interface ApplySchemaOptions {
  schemas: SchemaCatalog;
  /** The kind's root schema at the request's version (undefined: no schema, everything is admitted). */
  root: Schema | undefined;
  /** The kind is a custom resource (embedded resources get their type meta). */
  custom: boolean;
}

/** Paths of the fields of `applied` its schema does not declare (empty when all are declared). */
export function undeclaredFields(applied: Json, opts: ApplySchemaOptions): string[] {
  const out: string[] = [];
  if (!opts.root) return out;
  const objectMeta = opts.schemas.property(opts.schemas.resolve(opts.root) ?? {}, 'metadata');
  walk(applied, opts.root, '', false, out, { ...opts, objectMeta });
  return out;
}

interface Walk extends ApplySchemaOptions {
  objectMeta: Schema | undefined;
}

const STRING: Schema = { type: 'string' };

function walk(value: Json, field: Schema, path: string, inherited: boolean, out: string[], w: Walk): void {
  if (value === null) return;
  const named = typeof field['$ref'] === 'string';
  const s = w.schemas.resolve(field);
  if (!s) return;
  // A named type is converted on its own, outside any preserving parent.
  const preserve = (!named && inherited) || s['x-kubernetes-preserve-unknown-fields'] === true;
  if (Array.isArray(value)) {
    const items = w.schemas.items(s);
    if (!items) return;
    const shape = listShapeAt(w.schemas, field);
    value.forEach((item, i) => {
      let el = `[${i}]`;
      if (shape.kind === 'map' && isMap(item)) {
        const parts: string[] = [];
        for (const k of [...shape.keys].sort()) {
          const v = item[k] ?? shape.keyDefaults?.[k];
          if (v === undefined) return; // structured-merge-diff reports the missing key and goes no deeper
          parts.push(`${k}=${JSON.stringify(v)}`);
        }
        el = `[${parts.join(',')}]`;
      }
      walk(item, items, `${path}${el}`, preserve, out, w);
    });
    return;
  }
  if (!isMap(value)) return;
  const props = isMap(s['properties'] as Json) ? (s['properties'] as Record<string, Schema>) : undefined;
  const extra = s['additionalProperties'];
  const embedded = w.custom && s['x-kubernetes-embedded-resource'] === true;
  for (const [k, v] of Object.entries(value)) {
    let declared = props?.[k];
    // A built-in definition also declares the fields Kubernetes 1.34 added (the release we serve).
    if (!declared && !w.custom) declared = w.schemas.newerProperty(s, k);
    if (!declared && embedded) {
      if (k === 'apiVersion' || k === 'kind') declared = STRING;
      else if (k === 'metadata') declared = w.objectMeta;
    }
    const childPath = `${path}.${k}`;
    if (declared) walk(v, declared, childPath, preserve, out, w);
    else if (isMap(extra as Json)) walk(v, extra as Schema, childPath, preserve, out, w);
    else if (extra === true || (extra === undefined && (preserve || !props || !Object.keys(props).length)))
      continue;
    else {
      out.push(`${childPath}: field not declared in schema`);
      return;
    }
  }
}

/** `<namespace>/<name>; <group>/<version>, Kind=<Kind>` of the patch body, as `objectGVKNN` prints it. */
function gvknn(applied: KObject, namespace: string, name: string): string {
  const av = String(applied.apiVersion ?? '');
  const slash = av.indexOf('/');
  const group = slash < 0 ? '' : av.slice(0, slash);
  const version = slash < 0 ? av : av.slice(slash + 1);
  return `${namespace}/${name}; ${group}/${version}, Kind=${String(applied.kind ?? '')}`;
}

/**
 * Throws the real server's 500 when the applied configuration has undeclared fields. `namespace` and
 * `name` are the body's own, read before anything filled them in.
 */
function checkApplySchema(applied: KObject, namespace: string, name: string, opts: ApplySchemaOptions): void {
  const errs = undeclaredFields(applied as unknown as Json, opts);
  if (errs.length === 0) return;
  const text = errs.length === 1 ? errs[0]! : ['errors:', ...errs.map((e) => `  ${e}`)].join('\n');
  throw new ApiError(
    500,
    '',
    `failed to create typed patch object (${gvknn(applied, namespace, name)}): ${text}`,
  );
}

/**
 * The duplicate keys of an apply body, as go-yaml's strict decode reports them (sigs.k8s.io/yaml
 * `UnmarshalStrict`, which `patch.go` `applyPatcher` runs after the apply for fieldValidation Strict and
 * Warn): `line <n>: key "<key>" already set in map`, in document order. The non-strict decode keeps the
 * last value, as `parse(..., { uniqueKeys: false })` does.
 */
function duplicateYamlKeys(doc: Document, lines: LineCounter): string[] {
  const found: Array<{ at: number; text: string }> = [];
  visit(doc, {
    Map(_, map) {
      const seen = new Set<string>();
      for (const item of map.items) {
        const key = isScalar(item.key) ? item.key.value : item.key;
        const id = JSON.stringify(key);
        if (seen.has(id)) {
          const at = isNode(item.key) && item.key.range ? item.key.range[0] : 0;
          const shown = typeof key === 'string' ? JSON.stringify(key) : String(key);
          found.push({ at, text: `line ${lines.linePos(at).line}: key ${shown} already set in map` });
        }
        seen.add(id);
      }
    },
  });
  return found.sort((a, b) => a.at - b.at).map((f) => f.text);
}

export interface DecodeApplyOptions extends ApplySchemaOptions {
  /** The group/version and kind the request's URL names. */
  apiVersion: string;
  kind: string;
}

/**
 * An apply patch as kube-apiserver reads it before merging (patch.go `applyPatcher`, then the field
 * manager): decoded as sigs.k8s.io/yaml `Unmarshal` (400 `error decoding YAML: ...`; a duplicate key keeps
 * its last value), a body of another kind or version refused (versioncheck.go: 400 `invalid object type:
 * apps/v2, Kind=Deployment`, also when apiVersion or kind is missing), `metadata.managedFields` refused
 * (structuredmerge.go: 400 `metadata.managedFields must be nil`; null passes), then the typed conversion
 * (`checkApplySchema`). Returns the configuration and its duplicate keys, which `strictYamlDecode` judges
 * after the merge.
 */
export function decodeApplyPatch(
  raw: string,
  opts: DecodeApplyOptions,
): { cfg: KObject; duplicates: string[] } {
  const lines = new LineCounter();
  const doc = parseDocument(raw, { uniqueKeys: false, lineCounter: lines });
  if (doc.errors.length > 0) throw badRequest(`error decoding YAML: ${doc.errors[0]!.message}`);
  const applied: unknown = doc.toJS();
  if (!isMap(applied as Json)) throw badRequest('the apply configuration must be an object');
  const cfg = applied as KObject;
  if (cfg.apiVersion !== opts.apiVersion || cfg.kind !== opts.kind) {
    const av = typeof cfg.apiVersion === 'string' ? cfg.apiVersion : '';
    const gv = av.includes('/') ? av : `/${av}`;
    throw badRequest(`invalid object type: ${gv}, Kind=${typeof cfg.kind === 'string' ? cfg.kind : ''}`);
  }
  const meta = isMap(cfg.metadata as Json) ? cfg.metadata : undefined;
  if (meta?.managedFields !== undefined && meta.managedFields !== null)
    throw badRequest('metadata.managedFields must be nil');
  checkApplySchema(
    cfg,
    typeof meta?.namespace === 'string' ? meta.namespace : '',
    typeof meta?.name === 'string' ? meta.name : '',
    opts,
  );
  return { cfg, duplicates: duplicateYamlKeys(doc, lines) };
}

/**
 * The strict YAML decode `applyPatcher` runs after the apply: under Strict duplicate keys are 400 `error
 * strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:` and one indented line each;
 * under Warn (the default) each is a Warning header (`parseYAMLWarnings`); under Ignore nothing.
 */
export function strictYamlDecode(
  duplicates: string[],
  validation: FieldValidation,
): Record<string, string[]> | undefined {
  if (duplicates.length === 0 || validation === 'Ignore') return undefined;
  if (validation === 'Strict')
    throw badRequest(
      `error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n${duplicates.map((d) => `  ${d}`).join('\n')}`,
    );
  return { Warning: duplicates.map(warningLine) };
}
