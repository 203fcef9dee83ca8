/**
 * Schema facts of Kubernetes kinds, from one source: Kubernetes' published OpenAPI (api/openapi-spec/
 * swagger.json, shipped in generated/kubernetes-openapi.ts by scripts/openapi.mjs) plus the schemas of the
 * CustomResourceDefinitions a cluster serves, and the one table of API-server defaults (defaults.ts).
 * Imports only src/common (JSON types).
 *
 * Who reads it:
 * - the embedded API server: strategic merge patch (patch strategy and merge key per field), managedFields
 *   (associative lists, `listShapeAt`), defaults (`applyDefaults`), `/openapi/v2` and `/openapi/v3`;
 * - the diff, through a `SchemaLookup` (lookup.ts: facts by object path per kind, CRDs and argocd-cm
 *   knownTypeFields included): list shapes, quantity fields, defaults; and src/diff/rules.ts `mergeKeyFor`
 *   (strategic merge keys of built-in kinds);
 * - validation of targets against their kind's schema (walk `properties`, `items`, `additionalProperties`
 *   with `resolve` for `$ref`).
 *
 * API:
 * - `SchemaCatalog`: the published definitions (shared, decoded once on first use) plus CRD schemas added
 *   with `addCustomResourceDefinition` (removed with `removeCustomResourceDefinition`). One catalog per
 *   cluster; `builtinCatalog()` is a shared one that never holds CRDs.
 * - `schemaFor(gvk)` / `definitionNameFor(gvk)` / `schemaForGroupKind(group, kind)`: a kind's root schema,
 *   found by the `x-kubernetes-group-version-kind` extension (as kubectl does).
 * - `resolve(schema)`: follows `$ref` (`#/definitions/...` or `#/components/schemas/...`) to the definition.
 * - `property(parent, name)`, `items(list)`, `fieldAt(root, path)`: walk a schema. A field schema keeps its
 *   own extensions (patch strategy, list type) even when it is a `$ref`: those live on the field, the type
 *   lives on the definition.
 * - `newerProperty(definition, name)`: a field Kubernetes 1.34 declares and the 1.22 schema lacks (declared.ts,
 *   from @kubernetes/client-node's models), for the embedded server's unknown-field checks.
 * - `factsOf(field)`: the field's `FieldFacts` (patch strategies, merge key, list type and map keys, map
 *   type, int-or-string).
 * - `validateObject(catalog, obj)` (validate.ts; name and label rules in validate-meta.ts, `SchemaViolation`
 *   in violation.ts): what the API server would reject in an object (value types, base64 of `format: byte`,
 *   quantities, names and labels; CRD enum/required), by field path; the embedded server's answers and the
 *   diff's verdicts both come from it.
 * - quantity.ts: `resource.Quantity`'s grammar, once: `parseQuantity`/`canonicalQuantity` (the diff's
 *   `1000m` = `1`) and `quantityError` (what ParseQuantity refuses, as the server words it).
 *
 * - `definitionNameNear(gvk)`: the root at the closest version the catalog has (autoscaling/v2 -> v2beta2).
 * - lookup.ts: `schemaLookup(catalog, knownTypeFields)` -> `SchemaLookup`, `listShapeAt`, `listItemKey`.
 * - defaults.ts: `DEFAULTS` (keyed by definition), `applyDefaults`, `rulesFor` (the rules whose field the
 *   catalog has).
 *
 * Defaults are written in defaults.ts, not read from the OpenAPI: Kubernetes publishes built-in defaults
 * only from 1.27 on (v3 `default`), later than the newest spec any npm package ships (see docs/schema.md);
 * CRD `default`s are kept in the schemas as the CRD declares them.
 */
export {
  builtinCatalog,
  compareVersions,
  customResourceDefinitionName,
  groupVersionKindsOf,
  publishedDefinitions,
  PUBLISHED_OPENAPI,
  SchemaCatalog,
} from './catalog.js';
export type { FieldFacts, GroupVersionKind, Schema } from './catalog.js';
export {
  DECLARED_FIELDS,
  modelFields,
  modelOfDefinition,
  modelOfKind,
  newerFieldSchema,
} from './declared.js';
export { applyDefaults, DEFAULTS, defaultPullPolicy, ruleFieldPath, rulesFor } from './defaults.js';
export type { DefaultRule } from './defaults.js';
export { knownTypeSchema, listItemKey, listShapeAt, listShapeOf, schemaLookup } from './lookup.js';
export type { KindSchema, KnownTypeField, ListShape, SchemaLookup } from './lookup.js';
export { base64ErrorOffset, validateObject } from './validate.js';
export {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  metadataViolations,
  nameMessages,
} from './validate-meta.js';
export { formatViolation } from './violation.js';
export type { SchemaViolation, ViolationReason } from './violation.js';

export { canonicalQuantity, formatQuantity, parseQuantity, quantityError } from './quantity.js';
export type { Quantity } from './quantity.js';
