/** CustomResourceDefinitions tests and benchmarks install into the embedded API server. */
import type { KubeObject } from '../../src/common/index.js';

/**
 * A namespaced CRD serving `kind` at `group`/v1 (plural `<kind>s`) whose object schema is `openAPIV3Schema`.
 */
export function crdWithSchema(
  group: string,
  kind: string,
  openAPIV3Schema: Record<string, unknown>,
  plural = `${kind.toLowerCase()}s`,
): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema } }],
    },
  };
}

/** `crdWithSchema` with an object schema whose `spec` has these properties (and `required`). */
export function crdWithSpec(
  group: string,
  kind: string,
  properties: Record<string, unknown>,
  required?: string[],
): KubeObject {
  return crdWithSchema(group, kind, {
    type: 'object',
    properties: { spec: { type: 'object', ...(required ? { required } : {}), properties } },
  });
}

/** A namespaced CRD serving `kind` at `group`/v1 with a schema that keeps every field. */
export function preserveUnknownFieldsCrd(
  group: string,
  kind: string,
  plural = `${kind.toLowerCase()}s`,
): KubeObject {
  return crdWithSchema(group, kind, { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, plural);
}

/** A CRD whose `spec.endpoints` is a map list keyed by name and port, `spec.tags` a set. */
export function widgetCrd(): KubeObject {
  return crdWithSpec('example.com', 'Widget', {
    endpoints: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name', 'port'],
      items: {
        type: 'object',
        required: ['name', 'port'],
        properties: {
          name: { type: 'string' },
          port: { type: 'integer', default: 80 },
          weight: { type: 'integer' },
        },
      },
    },
    tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
    plain: {
      type: 'array',
      items: { type: 'object', properties: { name: { type: 'string' } } },
    },
    podSpec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  });
}
