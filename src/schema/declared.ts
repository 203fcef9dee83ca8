/**
 * Fields a newer Kubernetes release declares that our 1.22 OpenAPI does not (`resizePolicy`, an init
 * container's `restartPolicy`, `schedulingGates`, a CRD schema's `x-kubernetes-validations`).
 *
 * Data: generated/declared-fields.ts (scripts/declared-fields.mjs), the `attributeTypeMap` of every model
 * of @kubernetes/client-node, which is generated from Kubernetes' published OpenAPI (v1.34.0 for 1.4.0):
 * per model its JSON field names and the model each field's values are walked by, plus which model each
 * 1.22 definition (`io.k8s.api.core.v1.PodSpec` -> `V1PodSpec`) and each built-in kind is. The table is
 * decoded on first use; client-node's bundle is never loaded.
 *
 * API:
 * - `modelOfDefinition(name)`, `modelOfKind(gvk)`: the model of a 1.22 definition or built-in kind, or
 *   undefined (the 1.22 schema alone then decides).
 * - `newerFieldSchema(model, field)`: a schema for field `field` of `model` when the model declares it,
 *   built from the models: objects with `properties`, lists with `items`, maps with
 *   `additionalProperties`; a field whose values are no model (strings, numbers, `any`) is `{}`, which
 *   admits anything. These schemas carry no list type, map type or patch strategy (the models have none),
 *   so lists below them are atomic for server-side apply and replaced whole by a strategic merge patch.
 *
 * The rule the embedded server follows (SchemaCatalog.newerProperty): a field of a built-in definition is
 * declared when the 1.22 schema or the 1.34 model declares it; below a field only 1.34 knows, the walk
 * follows the models.
 */
import { Buffer } from 'node:buffer';
import { gunzipSync } from 'node:zlib';
import {
  DECLARED_FIELDS_GZIP_BASE64,
  DECLARED_FIELDS_SOURCE,
  DECLARED_FIELDS_VERSION,
} from './generated/declared-fields.js';

type Schema = { readonly [key: string]: unknown };

interface Table {
  /** model -> JSON field name -> type code (`[` list, `{` map, then the model; '' for no model). */
  models: Record<string, Record<string, string>>;
  /** 1.22 definition name -> model. */
  definitions: Record<string, string>;
  /** `group/version/kind` -> model. */
  kinds: Record<string, string>;
}

export const DECLARED_FIELDS = { kubernetesVersion: DECLARED_FIELDS_VERSION, source: DECLARED_FIELDS_SOURCE };

let table: Table | undefined;

function load(): Table {
  table ??= JSON.parse(
    gunzipSync(Buffer.from(DECLARED_FIELDS_GZIP_BASE64, 'base64')).toString('utf8'),
  ) as Table;
  return table;
}

/** The 1.34 model generated from a 1.22 definition, or undefined. */
export function modelOfDefinition(definitionName: string): string | undefined {
  const t = load();
  return Object.hasOwn(t.definitions, definitionName) ? t.definitions[definitionName] : undefined;
}

/** The 1.34 model of a built-in kind's root, or undefined. */
export function modelOfKind(gvk: { group: string; version: string; kind: string }): string | undefined {
  const t = load();
  const key = `${gvk.group}/${gvk.version}/${gvk.kind}`;
  return Object.hasOwn(t.kinds, key) ? t.kinds[key] : undefined;
}

/** The JSON field names a model declares (empty for an unknown model). */
export function modelFields(model: string): string[] {
  const t = load();
  return Object.hasOwn(t.models, model) ? Object.keys(t.models[model]!) : [];
}

const ANYTHING: Schema = Object.freeze({});
const built = new Map<string, Schema>();

function schemaOfCode(code: string): Schema {
  const c = code[0];
  if (c === '[') return { type: 'array', items: schemaOfCode(code.slice(1)) };
  if (c === '{') return { type: 'object', additionalProperties: schemaOfCode(code.slice(1)) };
  return code ? modelSchema(code) : ANYTHING;
}

/** An object schema of a model (built once; models that refer to each other share their schemas). */
function modelSchema(model: string): Schema {
  const cached = built.get(model);
  if (cached) return cached;
  const fields = load().models[model] ?? {};
  const properties: Record<string, Schema> = {};
  // A model without fields admits anything (as a definition without properties does).
  const schema: Schema = Object.keys(fields).length
    ? { type: 'object', properties, 'x-kubectl-gitops-model': model }
    : ANYTHING;
  built.set(model, schema);
  for (const [name, code] of Object.entries(fields)) properties[name] = schemaOfCode(code);
  return schema;
}

/** The schema of field `field` of `model` when the model declares it. */
export function newerFieldSchema(model: string, field: string): Schema | undefined {
  const t = load();
  const fields = Object.hasOwn(t.models, model) ? t.models[model]! : undefined;
  if (!fields || !Object.hasOwn(fields, field)) return undefined;
  return schemaOfCode(fields[field]!);
}
