/**
 * `kubectl gitops controller` with malformed cluster Secrets in the Argo CD namespace (docs/clusters.md
 * "Malformed cluster Secrets"), on the embedded API server: a Secret with no server and one whose config
 * Argo CD cannot unmarshal do not stop the controller (Argo CD logs and goes on); the shard ownership is
 * recomputed at every app added (consistent-hashing), and each Secret's warning is still printed once; an
 * app on the in-cluster destination is synced, and an app whose destination name resolves to the Secret
 * with no server ends with an error naming that Secret, never its token.
 */
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import type { KubeObject } from '../../../src/cluster/index.js';
import { runController } from '../../../src/controller/index.js';
import { createSourceService } from '../../../src/source/index.js';
import type { SourceService } from '../../../src/source/index.js';
import { APP_PROJECT_CRD, APPLICATION_CRD } from '../../support/argocd.js';
import { api, useEmbeddedCluster, waitForObject, crdsEstablished } from '../../support/embedded.js';
import { TestRepo, appYaml, cm } from '../../support/git.js';
import { newCacheRoot } from '../setup.js';

const T = { timeout: 60_000 };
const APPS = '/apis/argoproj.io/v1alpha1/namespaces/argocd/applications';
const TOKEN = 'malformed-secret-token-3c4d5e';

describe('controller with malformed cluster Secrets', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const abort = new AbortController();
  const warnings: string[] = [];
  let source: SourceService;
  let done: Promise<unknown>;

  const secret = (name: string, stringData: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: 'argocd', labels: { 'argocd.argoproj.io/secret-type': 'cluster' } },
    stringData,
  });
  const create = async (name: string, destination: string, op = true): Promise<void> => {
    const body = parse(appYaml(name, repo.url, 'web', { namespace: 'web' })) as KubeObject;
    body.metadata = { ...body.metadata, namespace: 'argocd' };
    (body as { spec: { destination: object } }).spec.destination = {
      ...(destination.startsWith('https://') ? { server: destination } : { name: destination }),
      namespace: 'web',
    };
    const res = await api(fx.cluster, 'POST', APPS, op ? { ...body, operation: { sync: {} } } : body);
    assert.equal(res.status, 201, JSON.stringify(res.body));
  };

  before(async () => {
    for (const crd of [APPLICATION_CRD, APP_PROJECT_CRD])
      assert.equal(
        (await api(fx.cluster, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd))
          .status,
        201,
      );
    await crdsEstablished(fx);
    for (const name of ['argocd', 'web'])
      await api(fx.cluster, 'POST', '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name },
      });
    for (const s of [
      secret('no-server', { name: 'broken', config: JSON.stringify({ bearerToken: TOKEN }) }),
      secret('bad-config', { name: 'bad', server: 'https://bad.example', config: '{"bearerToken": 7}' }),
    ])
      assert.equal((await api(fx.cluster, 'POST', '/api/v1/namespaces/argocd/secrets', s)).status, 201);
    repo.commit({ 'web/cm.yaml': cm('web') });
    source = createSourceService({ cacheRoot: newCacheRoot() });
    done = runController({
      argocdNamespace: 'argocd',
      kubeconfig: fx.kubeconfig,
      signal: abort.signal,
      forceTakeover: true,
      sharding: { dynamic: false, shard: 0, replicas: 1, algorithm: 'consistent-hashing' },
      loopOptions: {
        source,
        kubeconfig: fx.kubeconfig,
        discovery: { cacheDir: join(fx.dir, 'discovery'), ttlMs: 0 },
        client: { retry: { baseDelayMs: 5, maxDelayMs: 20 } },
        eventBatchMs: 10,
        appResyncMs: 0,
        diffText: false,
      },
      onWarning: (m) => warnings.push(m),
    });
  });

  after(async () => {
    abort.abort();
    await done.catch(() => undefined);
    await source.close();
    repo.remove();
  });

  it(
    'goes on: syncs in-cluster apps, fails only the app on the Secret with no server, warns once each',
    T,
    async () => {
      await create('first', 'https://kubernetes.default.svc');
      await waitForObject(
        fx.cluster,
        `${APPS}/first`,
        (o) => o?.status?.operationState?.phase === 'Succeeded',
      );
      // Each app added recomputes the ownership (consistent-hashing counts apps per cluster).
      await create('second', 'https://kubernetes.default.svc');
      await waitForObject(
        fx.cluster,
        `${APPS}/second`,
        (o) => o?.status?.operationState?.phase === 'Succeeded',
      );
      await create('to-broken', 'broken', false);
      const broken = await waitForObject(fx.cluster, `${APPS}/to-broken`, (o) =>
        (o?.status?.conditions ?? []).some((c: { message: string }) => /has no server/.test(c.message)),
      );
      const message = JSON.stringify(broken.status.conditions);
      assert.match(message, /cluster Secret secret argocd\/no-server has no server/);
      assert.ok(!message.includes(TOKEN));
      const count = (re: RegExp) => warnings.filter((w) => re.test(w)).length;
      assert.equal(count(/Secret no-server: has no server/), 1, warnings.join('\n'));
      assert.equal(
        count(/Secret bad-config: left out: config\.bearerToken is not a string/),
        1,
        warnings.join('\n'),
      );
      assert.ok(!warnings.join('\n').includes(TOKEN));
    },
  );
});
