/**
 * Issue 12, "live state that survives a changing cluster", as a user meets it: the built CLI against the
 * embedded API server, a CRD deleted after a run left its kind in the on-disk discovery cache. The next
 * `diff` must not fail every app (it did: "failed to list: 404 page not found" for up to five minutes):
 * the app using the kind says so in an UnknownKind condition, the other app is untouched, and the exit
 * code is the one for differences (1), never the one for errors (2). Then the CRD is created again and
 * both apps are in sync. `npm test` builds first; run `npm run build` before running this file alone.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClusterConnection, ResourceInfo } from '../../src/cluster/index.js';
import { runCli } from '../support/cli.js';
import { preserveUnknownFieldsCrd } from '../support/crds.js';
import { useEmbeddedCluster } from '../support/embedded.js';
import { appYaml, cm, TestRepo, tempDir } from '../support/git.js';
import { connectAs, createNamespaces } from '../controller/setup.js';

interface DiffReport {
  apps: Array<{
    name: string;
    sync: string;
    conditions?: Array<{ type: string; message: string }>;
    warnings?: Array<{ type: string; message: string }>;
    resources: Array<{ kind: string; name: string; status: string }>;
  }>;
}

describe('CRD deleted and created between runs (CLI)', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const dir = tempDir('kg-crd-churn-');
  const env = { XDG_CACHE_HOME: join(dir, 'cache') };
  const appsFile = join(dir, 'apps.yaml');
  let conn: ClusterConnection;
  let crds: ResourceInfo;

  before(async () => {
    repo.commit({
      'plain/cm.yaml': cm('plain'),
      'gadgets/cog.yaml':
        'apiVersion: example.com/v1\nkind: Cog\nmetadata:\n  name: thing\nspec:\n  size: 3\n',
      'gadgets/cm.yaml': cm('gadgets'),
    });
    writeFileSync(
      appsFile,
      `${appYaml('plain', repo.url, 'plain', { namespace: 'churn' })}---\n${appYaml('gadgets', repo.url, 'gadgets', { namespace: 'churn' })}`,
    );
    conn = await connectAs(fx);
    await createNamespaces(conn, ['churn']);
    crds = await conn.discovery.resolve({ group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition' });
    await conn.client.create(crds, preserveUnknownFieldsCrd('example.com', 'Cog'));
  });

  after(() => {
    conn?.close();
    repo.remove();
  });

  const diff = () => runCli(['diff', '-f', appsFile, '--kubeconfig', fx.kubeconfig, '-o', 'json'], { env });
  const app = (report: DiffReport, name: string) => report.apps.find((a) => a.name === name)!;

  it('diff after the CRD went: exit 1, UnknownKind for the app using it, the other app untouched', async () => {
    const synced = await runCli(['sync', '-f', appsFile, '--kubeconfig', fx.kubeconfig], { env });
    assert.equal(synced.code, 0, synced.stderr);
    const clean = await diff();
    assert.equal(clean.code, 0, clean.stderr);

    // The discovery cache on disk (5 minutes) still names Cog when the next run starts.
    await conn.client.delete(crds, '', 'cogs.example.com');
    const after = await diff();
    assert.equal(after.code, 1, after.stderr);
    assert.doesNotMatch(after.stderr, /^error:/m);
    assert.match(after.stderr, /^warning: example\.com\/Cog: dropped from the live cache: .*404/m);
    const report = JSON.parse(after.stdout) as DiffReport;
    assert.equal(app(report, 'plain').sync, 'Synced');
    assert.deepEqual(app(report, 'plain').conditions ?? [], []);
    const gadgets = app(report, 'gadgets');
    assert.equal(gadgets.sync, 'OutOfSync');
    // Ours, not an Argo CD condition: under "warnings".
    assert.deepEqual(gadgets.conditions ?? [], []);
    assert.deepEqual(
      (gadgets.warnings ?? []).map((c) => c.type),
      ['UnknownKind'],
    );
    assert.match(gadgets.warnings![0]!.message, /example\.com\/v1\/Cog/);
    assert.equal(gadgets.resources.find((r) => r.kind === 'ConfigMap')?.status, 'Synced');

    // Created again: found without waiting for the disk cache to expire, and synced.
    await conn.client.create(crds, preserveUnknownFieldsCrd('example.com', 'Cog'));
    const again = await runCli(['sync', '-f', appsFile, '--kubeconfig', fx.kubeconfig], { env });
    assert.equal(again.code, 0, again.stderr);
    const final = await diff();
    assert.equal(final.code, 0, final.stdout + final.stderr);
  });
});
