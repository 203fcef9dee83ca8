import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import {
  adHocApplication,
  instanceName,
  loadApplications,
  parseSelector,
  selectApplications,
} from '../../src/apps/index.js';
import type { Application, ApplicationLister } from '../../src/apps/index.js';

function app(name: string, labels: Record<string, string>, namespace?: string): Application {
  return {
    ...adHocApplication({ repo: 'u', path: 'p', name }),
    labels,
    ...(namespace ? { namespace } : {}),
  };
}

describe('label selectors', () => {
  const labels = { team: 'web', tier: 'front' };
  const cases: [string, boolean][] = [
    ['team=web', true],
    ['team==web', true],
    ['team!=web', false],
    ['team=web,tier=front', true],
    ['team=web,tier=back', false],
    ['tier in (front, back)', true],
    ['tier notin (front)', false],
    ['missing notin (x)', true],
    ['team', true],
    ['!team', false],
    ['!missing', true],
    ['missing!=x', true],
  ];
  for (const [selector, expected] of cases) {
    it(`${selector} -> ${expected}`, () => assert.equal(parseSelector(selector)(labels), expected));
  }
  it('rejects malformed selectors', () => {
    assert.throws(() => parseSelector('team=web,,x'), /invalid requirement/);
    assert.throws(
      () => parseSelector('a b c'),
      /--selector: failed to parse label selector: invalid requirement "a b c"/,
    );
  });
});

describe('selecting apps', () => {
  const apps = [app('a', { team: 'web' }), app('b', { team: 'db' }), app('c', { team: 'web' }, 'other')];
  it('by name (or namespace/name), in load order', () => {
    assert.deepEqual(
      selectApplications(apps, { names: ['other/c', 'a'] }).map((a) => a.name),
      ['a', 'c'],
    );
  });
  it('by selector, combined with names', () => {
    assert.deepEqual(
      selectApplications(apps, { selector: 'team=web' }).map((a) => a.name),
      ['a', 'c'],
    );
    assert.deepEqual(
      selectApplications(apps, { selector: 'team=web', names: ['c', 'b'] }).map((a) => a.name),
      ['c'],
    );
  });
  it('an unknown name is an error listing known names', () => {
    assert.throws(
      () => selectApplications(apps, { names: ['zz'] }),
      /app "zz": failed to select: no such Application \(known: a, b, c\)/,
    );
  });
});

describe('ad-hoc app from flags', () => {
  it('builds a validated app with defaults', () => {
    const a = adHocApplication({
      repo: 'https://example.com/org/Deploy.git',
      path: 'envs/Prod_1/',
      destNamespace: 'prod',
    });
    assert.equal(a.name, 'prod-1');
    assert.equal(a.origin, 'flags');
    assert.deepEqual(a.sources, [
      { repoURL: 'https://example.com/org/Deploy.git', path: 'envs/Prod_1/', targetRevision: 'HEAD' },
    ]);
    assert.deepEqual(a.destination, { server: 'https://kubernetes.default.svc', namespace: 'prod' });
    assert.equal(adHocApplication({ repo: 'git@host:org/deploy.git', path: '.' }).name, 'deploy');
    assert.equal(
      adHocApplication({ repo: 'u', path: 'p', name: 'mine', revision: 'v1' }).sources[0]!.targetRevision,
      'v1',
    );
  });
  it('is merged with file apps and checked for duplicates', async () => {
    await assert.rejects(
      loadApplications({
        lister: listerOf([]),
        fromCluster: true,
        adHoc: { repo: 'u', path: 'p', name: 'x' },
        names: ['y'],
      }),
      /app "y": failed to select/,
    );
  });
});

function listerOf(items: unknown[]): ApplicationLister {
  return { listApplications: async () => items as never };
}

describe('--from-cluster with an injected reader', () => {
  it('reads and validates the namespace Applications; origin names the cluster object', async () => {
    const seen: string[] = [];
    const lister: ApplicationLister = {
      async listApplications(ns) {
        seen.push(ns);
        return [
          {
            metadata: { name: 'live', namespace: 'gitops' },
            spec: { source: { repoURL: 'u', path: 'p' }, destination: { namespace: 'x' } },
          },
        ];
      },
    };
    const apps = await loadApplications({ fromCluster: true, argocdNamespace: 'gitops', lister });
    assert.deepEqual(seen, ['gitops']);
    assert.equal(apps[0]!.origin, 'cluster gitops/live');
    assert.equal(instanceName(apps[0]!, 'gitops'), 'live');
    assert.equal(instanceName(apps[0]!, 'argocd'), 'gitops_live');
  });
  it('a listing failure names the namespace', async () => {
    const lister: ApplicationLister = {
      listApplications: async () => {
        throw new Error('connection refused');
      },
    };
    await assert.rejects(
      loadApplications({ fromCluster: true, lister }),
      /^Error: namespace argocd: failed to list Applications: connection refused$|namespace argocd: failed to list Applications: connection refused/,
    );
  });
});
