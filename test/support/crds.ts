/** CustomResourceDefinitions tests and benchmarks install into the embedded API server. */
import type { KubeObject } from '../../src/common/index.js';

/** A namespaced CRD serving `kind` at `group`/v1 with a schema that keeps every field. */
export function preserveUnknownFieldsCrd(
  group: string,
  kind: string,
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
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  };
}

/** A CRD whose `spec.endpoints` is a map list keyed by name and port, `spec.tags` a set. */
export function widgetCrd(): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: {
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
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
}
