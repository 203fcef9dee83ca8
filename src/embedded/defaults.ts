/**
 * Defaulting of the embedded API server: the defaults of built-in kinds come from the one table in
 * src/schema (`applyDefaults`, keyed by OpenAPI definition, applied only for fields the served schema
 * has), plus what is not a default but what clients see the same way: empty structs Go serializes, and the
 * few write-time conversions every real server does (Secret `stringData` -> `data`).
 *
 * Guarantees:
 * - A default is set only where the field is absent (undefined or null); values the client sent are kept.
 * - Defaulting is idempotent: applying it to an already defaulted object changes nothing.
 * - Allocated values (Service clusterIP, nodePort) are assigned on create only; updates that omit them keep
 *   the allocated ones (the real server's "patchAllocatedValues").
 */
import { setIfAbsent } from '../common/index.js';
import { applyDefaults as applySchemaDefaults } from '../schema/index.js';
import type { Schema, SchemaCatalog } from '../schema/index.js';
import type { Json, JsonMap, KObject } from './types.js';
import { isMap } from './types.js';

export { defaultPullPolicy } from '../schema/index.js';

type Rule = readonly [path: string, value: Json];

/**
 * Fields a real server's responses always carry because Go serializes empty structs and non-omitempty
 * zero values (they are not defaults, but clients see them the same way): the status of workloads before
 * any controller ran. Set only when absent. (Those that belong to a type wherever it is used, a
 * container's `resources: {}` and a template's `creationTimestamp: null`, are 'server' rules of the
 * defaults table.)
 */
const SERIALIZED_EMPTY: Record<string, Rule[]> = {
  'apps/Deployment': [['status', {}]],
  'apps/StatefulSet': [['status', { replicas: 0, availableReplicas: 0 }]],
  'apps/DaemonSet': [
    [
      'status',
      { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 },
    ],
  ],
  'apps/ReplicaSet': [['status', { replicas: 0 }]],
  'batch/Job': [['status', {}]],
  'batch/CronJob': [['status', {}]],
  'networking.k8s.io/Ingress': [['status', { loadBalancer: {} }]],
  '/Service': [['status.loadBalancer', {}]],
};

function groupOf(apiVersion: string): string {
  return apiVersion.includes('/') ? apiVersion.split('/')[0]! : '';
}

export function getPath(obj: Json | undefined, path: string): Json | undefined {
  let cur: Json | undefined = obj;
  for (const p of path.split('.')) cur = isMap(cur) ? cur[p] : undefined;
  return cur;
}

function applyRules(obj: JsonMap, rules: readonly Rule[]): void {
  for (const [path, value] of rules) setIfAbsent(obj, path, value);
}

/** Hands out Service cluster IPs (10.96.0.0/12 range, .1 is the kubernetes service) and node ports. */
export class Allocator {
  private nextIp = 10;
  private nextPort = 30000;

  clusterIP(): string {
    const n = this.nextIp++;
    return `10.96.${(n >> 8) & 255}.${n & 255}`;
  }

  nodePort(): number {
    return this.nextPort++;
  }
}

function allocateService(obj: JsonMap, alloc: Allocator): void {
  const spec = obj['spec'];
  if (!isMap(spec) || spec['type'] === 'ExternalName') return;
  if (spec['clusterIP'] === undefined || spec['clusterIP'] === '') spec['clusterIP'] = alloc.clusterIP();
  if (spec['clusterIPs'] === undefined) spec['clusterIPs'] = [spec['clusterIP'] as string];
  setIfAbsent(spec, 'ipFamilies', spec['clusterIP'] === 'None' ? ['IPv4'] : ['IPv4']);
  setIfAbsent(spec, 'ipFamilyPolicy', 'SingleStack');
  if (spec['type'] === 'NodePort' || spec['type'] === 'LoadBalancer') {
    setIfAbsent(spec, 'externalTrafficPolicy', 'Cluster');
    if (Array.isArray(spec['ports'])) {
      for (const p of spec['ports'])
        if (isMap(p) && p['nodePort'] === undefined) p['nodePort'] = alloc.nodePort();
    }
  }
}

/** Copies allocated Service values an update omitted (clusterIP(s), ipFamilies, nodePorts). */
export function keepAllocated(obj: KObject, old: KObject): void {
  if (obj.kind !== 'Service' || groupOf(obj.apiVersion) !== '') return;
  const spec = obj['spec'] as Json;
  const oldSpec = old['spec'] as Json;
  if (!isMap(spec) || !isMap(oldSpec)) return;
  for (const k of ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy']) {
    if (spec[k] === undefined && oldSpec[k] !== undefined) spec[k] = structuredClone(oldSpec[k]);
  }
  const ports = spec['ports'];
  const oldPorts = oldSpec['ports'];
  if (Array.isArray(ports) && Array.isArray(oldPorts)) {
    for (const p of ports) {
      if (!isMap(p) || p['nodePort'] !== undefined) continue;
      const o = oldPorts.find((x) => isMap(x) && x['port'] === p['port']);
      if (isMap(o) && o['nodePort'] !== undefined) p['nodePort'] = o['nodePort'];
    }
  }
}

/** Secret `stringData` is write-only: merged into `data` (base64), then dropped. */
function mergeStringData(obj: JsonMap): void {
  const sd = obj['stringData'];
  if (sd === undefined) return;
  if (isMap(sd)) {
    const data = isMap(obj['data']) ? { ...obj['data'] } : {};
    for (const [k, v] of Object.entries(sd))
      data[k] = Buffer.from(String(v ?? ''), 'utf8').toString('base64');
    obj['data'] = data;
  }
  delete obj['stringData'];
}

/**
 * Fills in defaults on `obj` in place (a fresh copy owned by the caller): for built-in kinds the defaults
 * table's (by the kind's definition in `schemas`), for custom resources their CRD schema's `default`s
 * (`structuralDefaults`), then serialized empty structs. `alloc` is given on create only.
 */
export function applyDefaults(obj: KObject, schemas: SchemaCatalog, alloc?: Allocator): void {
  const gk = `${groupOf(obj.apiVersion)}/${obj.kind}`;
  const o = obj as unknown as JsonMap;
  const slash = obj.apiVersion.indexOf('/');
  const version = slash < 0 ? obj.apiVersion : obj.apiVersion.slice(slash + 1);
  const definition = schemas.definitionNameFor({ group: groupOf(obj.apiVersion), version, kind: obj.kind });
  if (definition && schemas.isCustom(definition)) {
    const root = schemas.resolve({ $ref: `#/definitions/${definition}` });
    if (root) structuralDefaults(o, root, schemas);
  } else if (definition) applySchemaDefaults(o, schemas, definition, true);
  applyRules(o, SERIALIZED_EMPTY[gk] ?? []);
  if (gk === '/Service' && alloc) allocateService(o, alloc);
  if (gk === '/Secret') mergeStringData(o);
  if (gk === '/Namespace' && obj.metadata.name) {
    obj.metadata.labels = { ...obj.metadata.labels, 'kubernetes.io/metadata.name': obj.metadata.name };
  }
}

/**
 * A custom resource's defaults from its CRD's structural schema, as apiextensions-apiserver applies them
 * when it decodes a request (`structuraldefaulting.Default`): in every object the value has, a property
 * that is absent, or null where the schema does not allow null, gets a copy of its `default`; then the
 * walk goes on into properties, `additionalProperties` values and list items. Defaults never create a
 * parent that is absent.
 */
export function structuralDefaults(value: Json, schema: Schema, schemas: SchemaCatalog): void {
  if (Array.isArray(value)) {
    const items = schemas.items(schema);
    if (items) for (const el of value) structuralDefaults(el, schemas.resolve(items) ?? items, schemas);
    return;
  }
  if (!isMap(value)) return;
  const props = isMap(schema['properties'] as Json) ? (schema['properties'] as Record<string, Schema>) : {};
  for (const [k, raw] of Object.entries(props)) {
    const p = schemas.resolve(raw) ?? raw;
    const current = value[k];
    if (p['default'] !== undefined && (current === undefined || (current === null && p['nullable'] !== true)))
      value[k] = structuredClone(p['default'] as Json);
  }
  for (const [k, v] of Object.entries(value)) {
    const extra = schema['additionalProperties'];
    const raw = props[k] ?? (isMap(extra as Json) ? (extra as Schema) : undefined);
    if (raw) structuralDefaults(v as Json, schemas.resolve(raw) ?? raw, schemas);
  }
}
