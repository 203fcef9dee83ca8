// The diff reads custom resources' list shapes from the cluster's CRD schemas (the `schemas` option), as
// Argo CD's structured-merge and server-side diff read the cluster's OpenAPI, and Argo CD's
// knownTypeFields make a custom resource's field normalize as the built-in type it holds.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compareResource } from '../../src/diff/index.js';
import { SchemaCatalog, schemaLookup } from '../../src/schema/index.js';
import type { KubeObject } from '../../src/util/yaml-docs.js';
import { widgetCrd } from '../support/crds.js';

const catalog = new SchemaCatalog();
catalog.addCustomResourceDefinition(widgetCrd());
const schemas = schemaLookup(catalog);

const META = { name: 'w', namespace: 'default' };

function widget(spec: Record<string, unknown>, managedFields?: unknown[]): KubeObject {
  return {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { ...META, ...(managedFields ? { managedFields } : {}) },
    spec,
  } as KubeObject;
}

/** An Apply entry of `manager` owning the endpoints item {name, port} (and its weight). */
function applied(manager: string, name: string, port: number): unknown {
  return {
    manager,
    operation: 'Apply',
    apiVersion: 'example.com/v1',
    fieldsType: 'FieldsV1',
    fieldsV1: {
      'f:spec': {
        'f:endpoints': {
          [`k:{"name":"${name}","port":${port}}`]: { '.': {}, 'f:name': {}, 'f:port': {}, 'f:weight': {} },
        },
      },
    },
  };
}

describe('custom resources: list shapes from the CRD schema', () => {
  // Git has endpoint a; another manager added endpoint b live. With a map list (keys name, port), b is
  // not ours and stays: Synced. Read as atomic, Git's list replaces the live one: OutOfSync.
  const target = widget({ endpoints: [{ name: 'a', port: 80, weight: 1 }] });
  const live = widget(
    {
      endpoints: [
        { name: 'a', port: 80, weight: 1 },
        { name: 'b', port: 81, weight: 5 },
      ],
    },
    [applied('argocd-controller', 'a', 80), applied('other', 'b', 81)],
  );

  it('structured-merge diff merges a CRD map list by its x-kubernetes-list-map-keys', () => {
    const r = compareResource({ target, live, structuredMergeDiff: true, schemas });
    assert.deepEqual([r.strategy, r.status], ['structured-merge', 'Synced']);
    const atomic = compareResource({ target, live, structuredMergeDiff: true });
    assert.equal(atomic.status, 'OutOfSync', 'without the CRD schema the list is atomic');
  });

  it('structured-merge diff still prunes an item we applied and Git dropped', () => {
    const mine = widget(
      {
        endpoints: [
          { name: 'a', port: 80, weight: 1 },
          { name: 'a', port: 81, weight: 2 },
        ],
      },
      [
        {
          manager: 'argocd-controller',
          operation: 'Apply',
          apiVersion: 'example.com/v1',
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:spec': {
              'f:endpoints': {
                'k:{"name":"a","port":80}': { '.': {}, 'f:name': {}, 'f:port': {}, 'f:weight': {} },
                'k:{"name":"a","port":81}': { '.': {}, 'f:name': {}, 'f:port': {}, 'f:weight': {} },
              },
            },
          },
        },
      ],
    );
    const r = compareResource({ target, live: mine, structuredMergeDiff: true, schemas });
    assert.equal(r.status, 'OutOfSync');
    assert.deepEqual((r.normalizedTarget?.['spec'] as { endpoints: unknown[] }).endpoints, [
      { name: 'a', port: 80, weight: 1 },
    ]);
  });

  it("server-side diff's webhook filter keeps live items of a CRD map list and drops webhook ones", () => {
    // The dry-run answer: our item a, b (another manager's, already live) and c (added by a webhook).
    const predicted = widget(
      {
        endpoints: [
          { name: 'a', port: 80, weight: 1 },
          { name: 'b', port: 81, weight: 5 },
          { name: 'c', port: 82, weight: 9 },
        ],
      },
      [applied('argocd-controller', 'a', 80), applied('other', 'b', 81), applied('webhook', 'c', 82)],
    );
    const r = compareResource({ target, live, predictedLive: predicted, schemas });
    assert.deepEqual([r.strategy, r.status], ['server-side', 'Synced']);
    const atomic = compareResource({ target, live, predictedLive: predicted });
    assert.equal(atomic.status, 'OutOfSync', 'read as atomic, only our item is kept and replaces the list');
  });
});

describe('knownTypeFields', () => {
  const target = widget({
    podSpec: { containers: [{ name: 'c', resources: { limits: { cpu: '1000m' } } }] },
  });
  const live = widget({ podSpec: { containers: [{ name: 'c', resources: { limits: { cpu: '1' } } }] } });

  it('normalizes a custom resource field declared as a core/v1 type (quantities) as that type', () => {
    assert.equal(
      compareResource({ target, live, schemas }).status,
      'OutOfSync',
      'not declared: compared as written',
    );
    const known = schemaLookup(catalog, [
      { group: 'example.com', kind: 'Widget', field: 'spec.podSpec', type: 'core/v1/PodSpec' },
    ]);
    assert.equal(compareResource({ target, live, schemas: known }).status, 'Synced');
  });
});
