/**
 * argo-cd#15898 end to end (embedded API server, real Git, our sync): a custom resource whose Git manifest
 * has `metadata.labels: {}` is stored without labels (the server drops the empty map), and is OutOfSync after
 * every sync, as Argo CD reports it, with a note naming the upstream issue; a ConfigMap with the same
 * manifest line is Synced (built-in kinds are remarshalled through their Go type).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { EMPTY_LABELS_NOTE } from '../../../src/diff/index.js';
import { diffDocument, renderDiffText } from '../../../src/output/diff.js';
import { api, useEmbeddedCluster } from '../../support/embedded.js';
import { preserveUnknownFieldsCrd } from '../../support/crds.js';
import { TestRepo } from '../../support/git.js';
import { application, newCacheRoot, refresh, reportOf, sync, syncRequest } from '../setup.js';

describe('controller: verdicts where Argo CD is odd, end to end', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();

  before(async () => {
    const crd = await api(
      fx.cluster,
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      preserveUnknownFieldsCrd('example.com', 'Gadget'),
    );
    assert.equal(crd.status, 201, JSON.stringify(crd.body));
    repo.commit({
      'odd/gadget.yaml': stringify({
        apiVersion: 'example.com/v1',
        kind: 'Gadget',
        metadata: { name: 'g', labels: {} },
        spec: { size: 1 },
      }),
      'odd/cm.yaml': stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'c', labels: {} },
        data: { a: '1' },
      }),
    });
  });

  after(() => repo.remove());

  it('an empty metadata.labels on a custom resource stays OutOfSync after a sync, with the note', async () => {
    const app = application('odd', repo.url, 'odd', { namespace: 'odd' });
    for (let i = 0; i < 2; i++) {
      const synced = reportOf(await sync(fx, [app], cacheRoot, syncRequest()), 'odd');
      assert.equal(synced.operation?.phase, 'Succeeded', synced.operation?.message);
    }
    const live = await api(fx.cluster, 'GET', '/apis/example.com/v1/namespaces/odd/gadgets/g');
    assert.equal(live.body.metadata.labels, undefined, 'the server stored no empty map');

    const report = await refresh(fx, [app], cacheRoot);
    const cmp = reportOf(report, 'odd').comparison!;
    assert.deepEqual(
      cmp.resources.map((r) => [r.kind, r.status, r.note ?? null]),
      [
        ['ConfigMap', 'Synced', null],
        ['Gadget', 'OutOfSync', EMPTY_LABELS_NOTE],
      ],
    );
    assert.equal(cmp.sync, 'OutOfSync');
    const gadget = cmp.resources.find((r) => r.kind === 'Gadget')!;
    assert.match(gadget.diffText ?? '', /^\+ {2}labels: \{\}$/m);
    const text = renderDiffText(report);
    assert.match(text, /^===== example\.com\/Gadget odd\/g ====== \(.*argo-cd#15898\)\)?$/m);
    const json = diffDocument(report).apps[0]!['resources'] as Array<Record<string, unknown>>;
    assert.equal(json.find((r) => r['kind'] === 'Gadget')?.['note'], EMPTY_LABELS_NOTE);
  });
});
