/**
 * RespectIgnoreDifferences: the target a sync applies keeps the live values of its ignored fields (Argo CD
 * controller/sync.go normalizeTargetResources; conformance c106, Argo CD 3.6.1 kept the live replicas).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compileIgnoreDifferences, respectIgnoredFields } from '../../src/diff/index.js';
import type { KubeObject } from '../../src/common/index.js';

const deployment = (
  replicas: number,
  containers: unknown[],
  extra: Record<string, unknown> = {},
): KubeObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'shop', ...extra },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers } },
    },
  }) as KubeObject;

/** What the server adds to a live Deployment: defaults, empty maps, status. */
function served(obj: KubeObject): KubeObject {
  const o = structuredClone(obj) as unknown as {
    metadata: Record<string, unknown>;
    spec: { template: { spec: Record<string, unknown> } };
    status?: unknown;
  };
  o.metadata['uid'] = 'u-1';
  o.metadata['resourceVersion'] = '7';
  o.spec.template.spec['securityContext'] = {};
  o.spec.template.spec['restartPolicy'] = 'Always';
  o.status = { replicas: 5, readyReplicas: 5 };
  return o as unknown as KubeObject;
}

describe('respectIgnoredFields', () => {
  it('keeps the live value of an ignored field and nothing else of live (c106)', () => {
    const ignores = compileIgnoreDifferences([
      { group: 'apps', kind: 'Deployment', jsonPointers: ['/spec/replicas'] },
    ]);
    const target = deployment(2, [{ name: 'main', image: 'app:2' }]);
    const live = served(deployment(5, [{ name: 'main', image: 'app:1' }]));
    const out = respectIgnoredFields(target, live, ignores);
    assert.deepEqual(out, deployment(5, [{ name: 'main', image: 'app:2' }]));
    assert.equal((target as { spec: { replicas: number } }).spec.replicas, 2, 'the target itself unchanged');
  });

  it('patches an ignored field of a list merged by key into its element only (strategic merge)', () => {
    const ignores = compileIgnoreDifferences([
      { group: 'apps', kind: 'Deployment', jsonPointers: ['/spec/template/spec/containers/0/image'] },
    ]);
    const target = deployment(2, [{ name: 'main', image: 'app:2', env: [{ name: 'A', value: '1' }] }]);
    const live = served(
      deployment(2, [
        { name: 'main', image: 'app:pinned' },
        { name: 'sidecar', image: 'proxy:1' },
      ]),
    );
    assert.deepEqual(
      respectIgnoredFields(target, live, ignores),
      deployment(2, [{ name: 'main', image: 'app:pinned', env: [{ name: 'A', value: '1' }] }]),
    );
  });

  it('copies a whole list of a custom resource (JSON merge patch) and the fields managers own', () => {
    const widget = (spec: Record<string, unknown>, meta: Record<string, unknown> = {}): KubeObject =>
      ({
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { name: 'w', namespace: 'ns', ...meta },
        spec,
      }) as KubeObject;
    const jq = compileIgnoreDifferences([
      { group: 'example.com', kind: 'Widget', jqPathExpressions: ['.spec.items[0].size'] },
    ]);
    assert.deepEqual(
      respectIgnoredFields(
        widget({ items: [{ id: 'a', size: 1 }], color: 'red' }),
        widget({ items: [{ id: 'a', size: 9 }, { id: 'b' }], color: 'blue' }),
        jq,
      ),
      widget({ items: [{ id: 'a', size: 9 }, { id: 'b' }], color: 'red' }),
    );
    const managers = compileIgnoreDifferences([
      { group: 'example.com', kind: 'Widget', managedFieldsManagers: ['scaler'] },
    ]);
    const managedFields = [
      {
        manager: 'scaler',
        operation: 'Update',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:size': {} } },
      },
    ];
    const out = respectIgnoredFields(
      widget({ size: 1, color: 'red' }),
      widget({ size: 4, color: 'blue' }, { managedFields }),
      managers,
    ) as unknown as { spec: unknown };
    assert.deepEqual(out.spec, { size: 4, color: 'red' });
  });

  it('leaves a target no rule matches as it is', () => {
    const ignores = compileIgnoreDifferences([
      { group: 'apps', kind: 'StatefulSet', jsonPointers: ['/spec/replicas'] },
    ]);
    const target = deployment(2, [{ name: 'main', image: 'app:2' }]);
    assert.equal(respectIgnoredFields(target, served(deployment(5, [])), ignores), target);
  });
});
