/**
 * Argo CD's destination -> cluster lookup (src/cluster/cluster-lookup.ts: util/argo/argo.go
 * GetDestinationServer, util/db/cluster.go GetClusterServersByName and GetCluster) and what diff/sync make
 * of a cluster Secret with no server (destination.ts): an error naming the Secret, only for an app that
 * resolves to it.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClusterAccess, loadKubeConfig, lookupDestination, resolveCluster } from '../../src/cluster/index.js';

const IN = 'https://kubernetes.default.svc';
const s = (server: string, name: string) => ({ server, name });

describe('destination lookup over cluster Secrets', () => {
  test('in-cluster by name: only when no Secret carries the name; disabled: filtered and refused', () => {
    const onlyIn = [s(IN, 'local')];
    assert.deepEqual(lookupDestination({ name: 'in-cluster' }, onlyIn, true), {
      found: 'secret',
      secret: onlyIn[0],
      server: IN,
    });
    const named = [s('https://other.example', 'in-cluster')];
    const r = lookupDestination({ name: 'in-cluster' }, named, true);
    assert.equal(r.found === 'secret' && r.server, 'https://other.example');
    assert.deepEqual(lookupDestination({ name: 'in-cluster' }, [], true), {
      found: 'in-cluster',
      server: IN,
    });
    const off = lookupDestination({ name: 'local' }, onlyIn, false);
    assert.equal(off.found === 'none' && off.error, 'there are no clusters with this name: local');
    const offServer = lookupDestination({ server: `${IN}/` }, [], false);
    assert.equal(
      offServer.found === 'none' && offServer.error,
      `error getting cluster by server "${IN}/": cluster "${IN}" is disabled`,
    );
  });

  test('both name and server, and neither, are errors; empty names match nothing', () => {
    const both = lookupDestination({ name: 'a', server: 'https://a' }, [s('https://a', 'a')], true);
    assert.equal(both.found === 'none' && both.why, 'both');
    const none = lookupDestination({}, [], true);
    assert.equal(none.found === 'none' && none.why, 'missing');
    const unnamed = lookupDestination({ name: '' }, [s('https://a', '')], true);
    assert.equal(unnamed.found === 'none' && unnamed.why, 'missing');
  });

  test('diff/sync: a destination resolving to a Secret with no server is an error naming the Secret', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gitops-lookup-'));
    const file = join(dir, 'kubeconfig');
    writeFileSync(
      file,
      'apiVersion: v1\nkind: Config\nclusters:\n- {name: a, cluster: {server: "https://a.example"}}\nusers:\n- {name: u, user: {}}\ncontexts:\n- {name: ctx-a, context: {cluster: a, user: u}}\ncurrent-context: ctx-a\n',
    );
    const kc = await loadKubeConfig({ kubeconfig: file });
    const secrets = [
      new ClusterAccess({
        server: '',
        name: 'broken',
        config: JSON.stringify({ bearerToken: 'secret-token-value' }),
        source: 'secret argocd/broken-cluster',
      }),
      new ClusterAccess({ server: 'https://b.example', name: 'b', source: 'secret argocd/b' }),
      new ClusterAccess({ server: 'https://b.example/', name: 'b', source: 'secret argocd/b-again' }),
    ];
    assert.throws(
      () => resolveCluster(kc, { name: 'broken' }, secrets),
      (err: Error) =>
        /failed to resolve: cluster Secret secret argocd\/broken-cluster has no server/.test(err.message) &&
        !err.message.includes('secret-token-value'),
    );
    // Other apps are unaffected; two Secrets for one server and one name are two clusters by name.
    assert.equal(
      resolveCluster(kc, { server: 'https://b.example' }, secrets).access?.source,
      'secret argocd/b-again',
    );
    assert.throws(
      () => resolveCluster(kc, { name: 'b' }, secrets),
      /there are 2 clusters with the same name: \[https:\/\/b\.example https:\/\/b\.example\]/,
    );
  });
});
