// Over 400 lines: one walk of an object against its schema; its checks share that walk's state.
/**
 * What a real kube-apiserver would reject in an object, checked against the kind's schema (the one lookup
 * both the diff and the embedded server use: `validateObject(catalog, obj)`, the catalog holding
 * Kubernetes' published definitions plus the cluster's CRD schemas).
 *
 * Checked, as the server checks them (sources in docs/schema.md):
 * - Value types (decoding): a string where the schema says integer, number or boolean (`containerPort:
 *   "8080"`), a number or boolean where it says string (a label value `1`), an object where it says list
 *   or scalar, and the other way round; a fraction where it says integer. Int-or-string fields take both
 *   an integer and a string; quantities take a string or a number; `null` is always accepted (the server
 *   decodes it as "not set"). `format: byte` values (Secret `data`, ConfigMap `binaryData`) must be
 *   base64 as Go's `encoding/base64` StdEncoding reads it (padding required, newlines skipped).
 * - Custom resources also: `enum` and `required` of their CRD schema (apiextensions' structural
 *   validation).
 * - Metadata (validate-meta.ts: apimachinery `ValidateObjectMeta` with the kind's name rule):
 *   `metadata.name` present and a DNS-1123 subdomain (253), a DNS-1123 label (63) for Namespace, a DNS-1035
 *   label for Service, a path segment for RBAC kinds, `<plural>.<group>` for CRDs, at most 52 characters for
 *   CronJob; `metadata.namespace` a DNS-1123 label; label keys and values.
 * Not checked: fields the schema does not declare (the server drops them with a warning, as Argo CD does
 * not fail on them), and the per-kind semantic validation beyond names (ranges, required fields of built-in
 * kinds: the server's own answer to the dry run reports those).
 *
 * A violation carries the field path as the server writes it (`spec.template.spec.containers[0].ports[0]
 * .containerPort`, map entries as `data[key]`), its message in apimachinery's field.Error form, and for
 * built-in kinds' decode failures the Go decoder's message (`json: cannot unmarshal string into Go struct
 * field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32`), which the real
 * server answers as 400 BadRequest before any validation; everything else is a 422 Invalid cause.
 * Values of `format: byte` fields are never quoted (they may be Secret data).
 */
import { parseApiVersion } from '../common/index.js';
import type { Schema, SchemaCatalog } from './catalog.js';
import { quantityError } from './quantity.js';
import { metadataViolations } from './validate-meta.js';
import type { SchemaViolation } from './violation.js';

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// --- base64 (Go encoding/base64 StdEncoding.Decode, as encoding/json decodes []byte) ---

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * The byte offset Go's StdEncoding reports for `s` ("illegal base64 data at input byte N"), or undefined
 * when it decodes. Padding is required; CR and LF are skipped anywhere.
 */
export function base64ErrorOffset(s: string): number | undefined {
  let si = 0;
  const n = s.length;
  const nl = (c: string | undefined): boolean => c === '\n' || c === '\r';
  while (si < n) {
    // One quantum of up to 4 characters.
    let j = 0;
    for (; j < 4; j++) {
      if (si === n) {
        if (j === 0) return undefined;
        return si - j;
      }
      const c = s[si]!;
      si++;
      if (B64.includes(c)) continue;
      if (nl(c)) {
        j--;
        continue;
      }
      if (c !== '=') return si - 1;
      // Padding: allowed in the third or fourth position only.
      if (j < 2) return si - 1;
      if (j === 2) {
        while (si < n && nl(s[si])) si++;
        if (si === n) return n;
        if (s[si] !== '=') return si - 1;
        si++;
      }
      while (si < n && nl(s[si])) si++;
      return si < n ? si : undefined;
    }
  }
  return undefined;
}

// --- the schema walk ---

const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';

/** The JSON type Go's decoder names in "cannot unmarshal X into ...". */
function goJsonType(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'number';
  return Array.isArray(v) ? 'array' : 'object';
}

/** The type go-openapi's validator names in "must be of type X: "Y"". */
function openApiType(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (v === null) return 'null';
  return Array.isArray(v) ? 'array' : 'object';
}

/** The Go type name of a definition (`io.k8s.api.core.v1.PodSpec` -> `v1.PodSpec`). */
function goTypeOfDefinition(name: string): string {
  if (name === INT_OR_STRING) return 'intstr.IntOrString';
  if (name === QUANTITY) return 'resource.Quantity';
  const parts = name.split('.');
  return parts.slice(-2).join('.');
}

interface Walk {
  catalog: SchemaCatalog;
  builtIn: boolean;
  out: SchemaViolation[];
}

function refName(schema: Schema | undefined): string | undefined {
  const ref = schema?.['$ref'];
  if (typeof ref === 'string') return ref.slice(ref.lastIndexOf('/') + 1);
  const all = schema?.['allOf'];
  if (Array.isArray(all) && all.length === 1 && isObject(all[0])) return refName(all[0] as Schema);
  return undefined;
}

/** The Go type of a field schema, for decode messages. */
function goType(w: Walk, field: Schema): string {
  const ref = refName(field);
  if (ref) return goTypeOfDefinition(ref);
  const t = field['type'];
  const format = field['format'];
  if (t === 'integer') return format === 'int64' ? 'int64' : format === 'int32' ? 'int32' : 'int';
  if (t === 'number') return 'float64';
  if (t === 'boolean') return 'bool';
  if (t === 'string') return format === 'byte' ? '[]uint8' : 'string';
  if (t === 'array') {
    const items = w.catalog.items(field);
    return `[]${items ? goType(w, items) : 'interface {}'}`;
  }
  if (t === 'object') {
    const extra = field['additionalProperties'];
    if (isObject(extra)) return `map[string]${goType(w, extra as Schema)}`;
  }
  return 'interface {}';
}

/** What a field accepts, read from its (resolved) schema. */
function expectedOf(
  field: Schema,
  resolved: Schema,
): { type?: string; intOrString: boolean; quantity: boolean } {
  const ref = refName(field);
  const intOrString =
    ref === INT_OR_STRING ||
    field['x-kubernetes-int-or-string'] === true ||
    resolved['x-kubernetes-int-or-string'] === true ||
    resolved['format'] === 'int-or-string';
  const quantity = ref === QUANTITY;
  const t = resolved['type'];
  return { ...(typeof t === 'string' ? { type: t } : {}), intOrString, quantity };
}

function accepts(type: string | undefined, v: unknown): boolean {
  switch (type) {
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number';
    case 'boolean':
      return typeof v === 'boolean';
    case 'string':
      return typeof v === 'string';
    case 'array':
      return Array.isArray(v);
    case 'object':
      return isObject(v);
    default:
      return true;
  }
}

function typeViolation(
  w: Walk,
  path: string,
  goPath: string,
  parentStruct: string,
  field: Schema,
  expected: string,
  v: unknown,
): void {
  const actual = openApiType(v);
  const violation: SchemaViolation = {
    reason: 'FieldValueTypeInvalid',
    field: path,
    message: `Invalid value: ${JSON.stringify(actual)}: ${path} in body must be of type ${expected}: ${JSON.stringify(actual)}`,
  };
  if (w.builtIn) {
    // Go's decoder names a fraction it cannot store in an integer ("number 3.5"), and only there: a
    // number where a string belongs is just "number" (so a Secret's value never reaches the message).
    const fraction = typeof v === 'number' && !Number.isInteger(v) && expected.startsWith('integer');
    const what = fraction ? `number ${v}` : goJsonType(v);
    violation.decode = `json: cannot unmarshal ${what} into Go struct field ${parentStruct}.${goPath} of type ${goType(w, field)}`;
    violation.convert = converterError(w, field, v);
  }
  w.out.push(violation);
}

/** The reflect.Kind a JSON value decodes to in an unstructured map (integers are int64: PreserveInts). */
function unstructuredKind(v: unknown): string {
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'string' || typeof v === 'boolean') return goJsonType(v);
  return Array.isArray(v) ? 'slice' : 'map';
}

/**
 * What apimachinery's `fromUnstructured` (runtime/converter.go) says when `v` does not fit the field: a
 * simple type takes only its own JSON group (an integer also converts to a float, an integral float to an
 * integer), a struct, slice or map only a map or a list; a type with its own UnmarshalJSON (IntOrString)
 * gets the JSON decoder's words for the value.
 */
function converterError(w: Walk, field: Schema, v: unknown): string {
  const source = unstructuredKind(v);
  const ref = refName(field);
  if (ref === INT_OR_STRING) {
    const what = typeof v === 'number' ? `number ${v}` : goJsonType(v);
    return `json: cannot unmarshal ${what} into Go value of type int32`;
  }
  if (ref) return `cannot restore struct from: ${source}`;
  const dest = goType(w, field);
  if (dest.startsWith('[]')) return `cannot restore slice from ${source}`;
  if (dest.startsWith('map[')) return `cannot restore map from ${source}`;
  const numeric = (k: string): boolean => /^(u?int\d*|float\d+)$/.test(k);
  // Go converts integers to strings (and to every number), floats to numbers: the converter refuses those
  // conversions with this message; anything Go cannot convert is an "unrecognized type".
  if ((source === 'int64' && (dest === 'string' || numeric(dest))) || (source === 'float64' && numeric(dest)))
    return `cannot convert ${source} to ${dest}`;
  return `unrecognized type: ${dest === 'interface {}' ? 'interface' : dest}`;
}

function child(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/** What `walk` reads from one field schema, worked out once per schema object (see `factsOf`). */
interface FieldFacts {
  s: Schema;
  type: string | undefined;
  intOrString: boolean;
  quantity: boolean;
  byte: boolean;
  props: Record<string, Schema> | undefined;
  extra: Schema | undefined;
  items: Schema | undefined;
  /** The Go struct name of a `$ref` field (for decode messages), else undefined. */
  struct: string | undefined;
}

/**
 * Per catalog and its generation (bumped when CRDs come or go, which can change what a `$ref` resolves
 * to), the facts of each field schema object. Schema objects are never mutated once in a catalog (a CRD
 * update brings new ones). The embedded server validates every write: this keeps it from resolving the
 * same definitions for every object.
 */
const FACTS = new WeakMap<
  SchemaCatalog,
  { generation: number; byField: WeakMap<Schema, FieldFacts | null> }
>();

function factsOf(catalog: SchemaCatalog, field: Schema): FieldFacts | null {
  let cached = FACTS.get(catalog);
  if (cached?.generation !== catalog.generation) {
    cached = { generation: catalog.generation, byField: new WeakMap() };
    FACTS.set(catalog, cached);
  }
  const byField = cached.byField;
  let f = byField.get(field);
  if (f !== undefined) return f;
  const s = catalog.resolve(field);
  if (!s) f = null;
  else {
    const { type, intOrString, quantity } = expectedOf(field, s);
    const ref = refName(field);
    f = {
      s,
      type,
      intOrString,
      quantity,
      byte: s['format'] === 'byte',
      props: isObject(s['properties']) ? (s['properties'] as Record<string, Schema>) : undefined,
      extra: isObject(s['additionalProperties']) ? (s['additionalProperties'] as Schema) : undefined,
      items: catalog.items(s),
      struct: ref ? goTypeOfDefinition(ref).split('.').pop()! : undefined,
    };
  }
  byField.set(field, f);
  return f;
}

function walk(
  w: Walk,
  value: unknown,
  field: Schema | undefined,
  path: string,
  goPath: string,
  parentStruct: string,
): void {
  if (value === null || value === undefined || !field) return;
  const f = factsOf(w.catalog, field);
  if (!f) return;
  const { s, type, intOrString, quantity } = f;
  if (intOrString) {
    if (typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value))) return;
    typeViolation(w, path, goPath, parentStruct, field, 'integer,string', value);
    return;
  }
  if (quantity) {
    // resource.Quantity decodes itself (UnmarshalJSON -> ParseQuantity) from a string, a number, or the
    // text of anything else; its errors are the message, without a field.
    const text = typeof value === 'string' ? value.trim() : JSON.stringify(value);
    const error = quantityError(text);
    if (error !== undefined) {
      w.out.push({
        reason: 'FieldValueInvalid',
        field: path,
        message: `Invalid value: ${JSON.stringify(typeof value === 'string' ? value : text)}: ${error}`,
        ...(w.builtIn ? { decode: error, convert: error } : {}),
      });
    }
    return;
  }
  if (!accepts(type, value)) {
    typeViolation(w, path, goPath, parentStruct, field, type!, value);
    return;
  }
  if (typeof value === 'string') {
    if (f.byte) {
      const at = base64ErrorOffset(value);
      if (at !== undefined) {
        w.out.push({
          reason: 'FieldValueInvalid',
          field: path,
          message: w.builtIn
            ? `Invalid value: illegal base64 data at input byte ${at}`
            : `Invalid value: ${path} in body must be of type byte`,
          ...(w.builtIn
            ? {
                decode: `illegal base64 data at input byte ${at}`,
                convert: `error decoding from json: illegal base64 data at input byte ${at}`,
              }
            : {}),
        });
      }
    }
  }
  if (!w.builtIn) customChecks(w, value, s, path);
  if (Array.isArray(value)) {
    const items = f.items;
    if (items) value.forEach((el, i) => walk(w, el, items, `${path}[${i}]`, goPath, parentStruct));
    return;
  }
  if (!isObject(value)) return;
  const { props, extra } = f;
  const struct = f.struct ?? parentStruct;
  for (const [k, v] of Object.entries(value)) {
    const declared = props?.[k];
    if (declared && isObject(declared)) walk(w, v, declared, child(path, k), child(goPath, k), struct);
    else if (extra) walk(w, v, extra, `${path}[${k}]`, goPath, struct);
    // Undeclared fields are not this check's business (the server drops them; Argo CD does not fail).
  }
}

/** CRD structural-schema checks beyond types: enum and required (apiextensions' kube-openapi validator). */
function customChecks(w: Walk, value: unknown, s: Schema, path: string): void {
  const e = s['enum'];
  if (Array.isArray(e) && e.length > 0 && !e.some((x) => JSON.stringify(x) === JSON.stringify(value))) {
    const shown = e.map((x) => JSON.stringify(typeof x === 'string' ? x : JSON.stringify(x))).join(', ');
    w.out.push({
      reason: 'FieldValueNotSupported',
      field: path,
      message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${shown}`,
    });
  }
  const req = s['required'];
  if (Array.isArray(req) && isObject(value)) {
    const props = isObject(s['properties']) ? (s['properties'] as Record<string, Schema>) : {};
    for (const r of req) {
      // A required field with a `default` is never missing: apiextensions-apiserver fills structural
      // defaults in when it decodes the request, before it validates.
      const defaulted = isObject(props[r]) && props[r]['default'] !== undefined;
      if (typeof r === 'string' && value[r] === undefined && !defaulted)
        w.out.push({ reason: 'FieldValueRequired', field: child(path, r), message: 'Required value' });
    }
  }
}

/**
 * Everything the API server would reject in `obj` (empty when nothing): its kind's schema at exactly its
 * apiVersion from `catalog` (no schema: the metadata checks alone), then the metadata rules. Decode
 * failures (`decode` set) come first, in the order of the object's fields, as the server meets them.
 */
/**
 * The field schema `{$ref}` a validation starts from, one object per definition name: `factsOf` memoizes
 * by schema object, so a fresh root per call would work its facts out again for every object, and fill
 * the memo with entries that live until the next full garbage collection (each validation's facts were
 * promoted to the old generation: about 600 bytes per validated object in a 10,000-object diff).
 */
const ROOTS = new Map<string, Schema>();

function rootField(name: string): Schema {
  let root = ROOTS.get(name);
  if (!root) ROOTS.set(name, (root = { $ref: `#/definitions/${name}` }));
  return root;
}

export function validateObject(catalog: SchemaCatalog, obj: Obj): SchemaViolation[] {
  const apiVersion = typeof obj['apiVersion'] === 'string' ? obj['apiVersion'] : '';
  const kind = typeof obj['kind'] === 'string' ? obj['kind'] : '';
  const { group, version } = parseApiVersion(apiVersion);
  const name = catalog.definitionNameFor({ group, version, kind });
  const out: SchemaViolation[] = [];
  if (name) {
    const builtIn = !catalog.isCustom(name);
    const w: Walk = { catalog, builtIn, out };
    walk(w, obj, rootField(name), '', '', kind);
  }
  // Metadata rules need a well-typed metadata (a type failure there is already reported).
  if (!out.some((v) => v.field === 'metadata' || v.field.startsWith('metadata.name')))
    out.push(...metadataViolations(group, kind, obj));
  return out;
}
