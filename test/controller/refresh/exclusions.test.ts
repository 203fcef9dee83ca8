/** ResourceFilter: argo-cd util/settings/resources_filter.go IsExcludedResource, table by table. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ResourceFilter, isExcluded } from '../../../src/controller/index.js';
import { globMatch } from '../../../src/common/index.js';

const f = (groups: string[], kinds: string[] = [], clusters: string[] = []) => ({
  apiGroups: groups,
  kinds,
  clusters,
});

describe('resource exclusions and inclusions', () => {
  it('with no argocd-cm: the core exclusions and the shipped resource.exclusions', () => {
    for (const gk of [
      { group: '', kind: 'Event' },
      { group: 'events.k8s.io', kind: 'Event' },
      { group: 'metrics.k8s.io', kind: 'PodMetrics' },
      { group: 'coordination.k8s.io', kind: 'Lease' },
      { group: 'discovery.k8s.io', kind: 'EndpointSlice' },
      { group: '', kind: 'Endpoints' },
      { group: 'cilium.io', kind: 'CiliumIdentity' },
      { group: 'kyverno.io', kind: 'UpdateRequest' },
    ])
      assert.equal(isExcluded(gk), true, `${gk.group}/${gk.kind}`);
    for (const gk of [
      { group: '', kind: 'ConfigMap' },
      { group: 'apps', kind: 'Deployment' },
      { group: 'apiregistration.k8s.io', kind: 'APIService' },
    ])
      assert.equal(isExcluded(gk), false, `${gk.group}/${gk.kind}`);
  });

  it('an argocd-cm without resource.exclusions has only the core exclusions', () => {
    const filter = new ResourceFilter({});
    assert.equal(filter.isExcluded({ group: '', kind: 'Endpoints' }), false);
    assert.equal(filter.isExcluded({ group: '', kind: 'Event' }), true);
  });

  it('exclusions match group globs, exact or * kinds and cluster globs; empty lists match anything', () => {
    const filter = new ResourceFilter({
      exclusions: [f(['*.example.com'], ['Widget'], ['https://prod-*']), f(['batch'])],
    });
    assert.equal(filter.isExcluded({ group: 'a.example.com', kind: 'Widget' }, 'https://prod-1'), true);
    assert.equal(filter.isExcluded({ group: 'a.example.com', kind: 'Widget' }, 'https://dev-1'), false);
    assert.equal(filter.isExcluded({ group: 'a.example.com', kind: 'Gadget' }, 'https://prod-1'), false);
    assert.equal(filter.isExcluded({ group: 'batch', kind: 'Job' }), true);
    assert.equal(filter.isExcluded({ group: 'batch', kind: 'CronJob' }), true);
  });

  it('inclusions: listed kinds kept, others excluded on the clusters the inclusions name', () => {
    const filter = new ResourceFilter({
      exclusions: [f([''], ['Secret'])],
      inclusions: [f(['', 'apps'], ['*'], ['https://prod'])],
    });
    assert.equal(filter.isExcluded({ group: 'apps', kind: 'Deployment' }, 'https://prod'), false);
    assert.equal(filter.isExcluded({ group: 'batch', kind: 'Job' }, 'https://prod'), true);
    assert.equal(filter.isExcluded({ group: '', kind: 'Secret' }, 'https://prod'), true, 'exclusions win');
    assert.equal(
      filter.isExcluded({ group: 'batch', kind: 'Job' }, 'https://dev'),
      false,
      'no inclusion for dev',
    );
  });

  it('globs: * crosses "/", ?, classes and alternatives; a pattern that does not compile matches itself', () => {
    assert.equal(globMatch('*', 'apps/Deployment'), true);
    assert.equal(globMatch('*/*', 'ConfigMap'), false);
    assert.equal(globMatch('ap?s', 'apps'), true);
    assert.equal(globMatch('[a-c]pps', 'apps'), true);
    assert.equal(globMatch('[!a]pps', 'apps'), false);
    assert.equal(globMatch('{apps,batch}', 'batch'), true);
    assert.equal(globMatch('a.b', 'aXb'), false);
    assert.equal(globMatch('[abc', '[abc'), true);
  });
});
