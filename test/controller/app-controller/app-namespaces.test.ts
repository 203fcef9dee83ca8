/**
 * `kubectl gitops controller --application-namespaces` (Argo CD's `--application-namespaces` /
 * argocd-cmd-params-cm `application.namespaces`): Applications of the namespaces the patterns match are
 * reconciled, their status written in their own namespace, held to their project's `sourceNamespaces`;
 * Applications elsewhere are left alone (conformance c135, c136, c137).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { api, useEmbeddedCluster, waitForObject } from '../../support/embedded.js';
import { TestRepo, appYaml, cm } from '../../support/git.js';
import { parse } from 'yaml';
import { newCacheRoot } from '../setup.js';
import { startController } from './harness.js';
import type { ControllerHarness } from './harness.js';

const T = { timeout: 60_000 };
const appsIn = (ns: string): string => `/apis/argoproj.io/v1alpha1/namespaces/${ns}/applications`;

describe('kubectl gitops controller: Applications outside the Argo CD namespace', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();
  let h: ControllerHarness;

  const createApp = async (ns: string, name: string, project: string): Promise<void> => {
    const body = parse(appYaml(name, repo.url, 'app', { namespace: 'dest' })) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    body['metadata'] = { name, namespace: ns };
    body['spec'].project = project;
    const res = await api(fx.cluster, 'POST', appsIn(ns), body);
    assert.equal(res.status, 201, JSON.stringify(res.body));
  };

  before(async () => {
    repo.commit({ 'app/a.yaml': cm('settings') });
    h = await startController(fx, cacheRoot, ['team-a', 'team-b', 'other', 'dest'], {
      applicationNamespaces: ['team-*'],
    });
    const project = await api(
      fx.cluster,
      'POST',
      '/apis/argoproj.io/v1alpha1/namespaces/argocd/appprojects',
      {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'AppProject',
        metadata: { name: 'teams', namespace: 'argocd' },
        spec: {
          sourceRepos: ['*'],
          sourceNamespaces: ['team-a'],
          destinations: [{ server: '*', namespace: '*' }],
        },
      },
    );
    assert.equal(project.status, 201, JSON.stringify(project.body));
  });

  after(async () => {
    await h.stop();
    repo.remove();
  });

  it(
    'reconciles an app in a matching namespace its project allows, with its namespaced tracking id',
    T,
    async () => {
      await createApp('team-a', 'web', 'teams');
      const app = await waitForObject(fx.cluster, `${appsIn('team-a')}/web`, (o) => o?.status?.sync?.status);
      assert.equal(app.status.sync.status, 'OutOfSync');
      assert.deepEqual(
        app.status.resources.map((r: { kind: string; name: string; status: string }) => [
          r.kind,
          r.name,
          r.status,
        ]),
        [['ConfigMap', 'settings', 'OutOfSync']],
      );
      assert.equal(app.status.controllerNamespace, 'argocd');
      // A sync writes Argo CD's tracking id of an app outside its namespace: <namespace>_<name>.
      const patched = await api(
        fx.cluster,
        'PATCH',
        `${appsIn('team-a')}/web`,
        { operation: { sync: {}, initiatedBy: { username: 'alice' } } },
        'application/merge-patch+json',
      );
      assert.equal(patched.status, 200);
      await waitForObject(fx.cluster, `${appsIn('team-a')}/web`, (o) => o?.status?.sync?.status === 'Synced');
      const live = await api(fx.cluster, 'GET', '/api/v1/namespaces/dest/configmaps/settings');
      assert.equal(
        live.body.metadata.annotations['argocd.argoproj.io/tracking-id'],
        'team-a_web:/ConfigMap:dest/settings',
      );
    },
  );

  it("refuses an app in a matching namespace its project's sourceNamespaces do not allow", T, async () => {
    await createApp('team-b', 'web', 'teams');
    const app = await waitForObject(fx.cluster, `${appsIn('team-b')}/web`, (o) => o?.status?.conditions);
    assert.equal(app.status.sync.status, 'Unknown');
    assert.deepEqual(
      app.status.conditions.map((c: { type: string; message: string }) => [c.type, c.message]),
      [['UnknownError', "application 'web' in namespace 'team-b' is not permitted to use project 'teams'"]],
    );
  });

  it('leaves an app in a namespace no pattern matches alone', T, async () => {
    await createApp('other', 'web', 'teams');
    // Wait for an app created after it to be reconciled: the controller had its chance.
    await createApp('team-a', 'later', 'teams');
    await waitForObject(fx.cluster, `${appsIn('team-a')}/later`, (o) => o?.status?.sync?.status);
    const app = (await api(fx.cluster, 'GET', `${appsIn('other')}/web`)).body;
    assert.equal(app.status, undefined);
    assert.ok(!h.events.some((e) => 'key' in e && e.key === 'other/web'));
  });
});
