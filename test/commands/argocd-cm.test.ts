/**
 * argocd-cm read by `diff` (the built CLI against the embedded API server, real Git): health scripts (a
 * verdict, a failing script, a script stopped by the instruction limit), ignoreDifferences overrides,
 * exclusions, masked annotations; from `--argocd-cm FILE`, stdin, and the live Argo CD namespace with
 * `--from-cluster`. `npm test` builds first; run `npm run build` before running this file alone.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { ClusterConnection, KubeObject, ResourceInfo } from '../../src/cluster/index.js';
import { runCli } from '../support/cli.js';
import type { CliResult } from '../support/cli.js';
import { useEmbeddedCluster, needsEmbedded, crdsEstablished } from '../support/embedded.js';
import { APPLICATION_CRD } from '../support/argocd.js';
import { appYaml, TestRepo, tempDir } from '../support/git.js';
import { repoRoot } from '../support/paths.js';
import {
  application,
  applyObjects,
  connectAs,
  createNamespaces,
  renderObjects,
} from '../controller/setup.js';

interface Doc {
  apps: Array<{
    name: string;
    sync: string;
    health: string;
    healthMessage?: string;
    conditions: Array<{ type: string; message: string }>;
    resources: Array<{
      kind: string;
      name: string;
      status: string;
      health: string | null;
      healthMessage?: string;
    }>;
  }>;
}

const ARGOCD_CM = `apiVersion: v1
kind: ConfigMap
metadata:
  name: argocd-cm
  namespace: argocd
data:
  resource.customizations.health.ConfigMap: |
    if obj.metadata.name == "plain" then
      return {status = "Degraded", message = "data a is " .. obj.data.a}
    end
    return {status = "Healthy"}
  resource.customizations.ignoreDifferences.ConfigMap: |
    jsonPointers:
    - /data/b
  resource.customizations.health.ServiceAccount: |
    if obj.metadata.name == "loop" then
      while true do end
    end
    return obj.status.phase
  resource.exclusions: |
    - apiGroups: [rbac.authorization.k8s.io]
      kinds: [Role]
  resource.sensitive.mask.annotations: token
`;

const cmYaml = (
  name: string,
  data: Record<string, string>,
  annotations: Record<string, string> = {},
): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${
    Object.keys(annotations).length
      ? `  annotations:\n${Object.entries(annotations)
          .map(([k, v]) => `    ${k}: ${v}\n`)
          .join('')}`
      : ''
  }data:\n${Object.entries(data)
    .map(([k, v]) => `  ${k}: "${v}"\n`)
    .join('')}`;

describe('diff reads argocd-cm (CLI, embedded cluster)', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const dir = tempDir('kg-argocd-cm-');
  const env = { XDG_CACHE_HOME: join(dir, 'cache') };
  let conn: ClusterConnection;
  let appsFile: string;
  let cmFile: string;

  const diff = (args: string[], input?: string): Promise<CliResult> =>
    runCli(['diff', '--kubeconfig', fx.kubeconfig, ...args], { env, ...(input ? { input } : {}) });
  const json = (r: CliResult): Doc => JSON.parse(r.stdout) as Doc;
  const app = (doc: Doc, name: string): Doc['apps'][number] => doc.apps.find((a) => a.name === name)!;

  before(async () => {
    assert.ok(existsSync(join(repoRoot, 'dist', 'cli.js')), 'dist/ is missing: run `npm run build` first');
    repo.commit({
      'good/plain.yaml': cmYaml('plain', { a: '1', b: 'git' }),
      // Wave 1: sync waits for the health of wave 0 (plain) before it, with the same Lua checks.
      'good/masked.yaml': cmYaml(
        'masked',
        { a: '1' },
        { token: 'git-token-value', 'argocd.argoproj.io/sync-wave': '"1"' },
      ),
      'good/role.yaml':
        'apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: excluded\nrules: []\n',
      // Git holds a status the API server never stores through apply: only compared with ignoreResourceStatusField none.
      'stat/svc.yaml':
        'apiVersion: v1\nkind: Service\nmetadata:\n  name: lb\nspec:\n  ports:\n  - port: 80\nstatus:\n  loadBalancer:\n    ingress:\n    - ip: 10.0.0.1\n',
      'bad/sa.yaml':
        'apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: broken\n---\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: loop\n',
    });
    appsFile = join(dir, 'apps.yaml');
    writeFileSync(
      appsFile,
      [
        appYaml('good', repo.url, 'good', { namespace: 'good' }),
        appYaml('bad', repo.url, 'bad', { namespace: 'bad' }),
      ].join('---\n'),
    );
    cmFile = join(dir, 'argocd-cm.yaml');
    writeFileSync(cmFile, ARGOCD_CM);

    conn = await connectAs(fx);
    await createNamespaces(conn, ['good', 'bad', 'argocd']);
    const cache = join(dir, 'render-cache');
    const good = await renderObjects(application('good', repo.url, 'good', { namespace: 'good' }), cache);
    const live = good.map((o) => {
      if (o.metadata?.name === 'plain') return { ...o, data: { a: '1', b: 'live' } };
      if (o.metadata?.name === 'masked')
        return {
          ...o,
          metadata: { ...o.metadata, annotations: { ...o.metadata.annotations, token: 'live-token-value' } },
        };
      return o;
    });
    await applyObjects(conn, live, 'good');
    await applyObjects(
      conn,
      await renderObjects(application('bad', repo.url, 'bad', { namespace: 'bad' }), cache),
      'bad',
    );
  });

  after(() => {
    conn?.close();
    repo.remove();
  });

  it('without argocd-cm: Argo CD defaults (drift in data.b, no ConfigMap health, the Role compared)', async () => {
    const r = await diff(['-f', appsFile, '-o', 'json']);
    assert.equal(r.code, 1, r.stderr);
    const good = app(json(r), 'good');
    assert.deepEqual(
      good.resources.map((x) => [x.kind, x.name, x.status, x.health]),
      [
        ['ConfigMap', 'masked', 'OutOfSync', null],
        ['ConfigMap', 'plain', 'OutOfSync', null],
        ['Role', 'excluded', 'Synced', null],
      ],
    );
    assert.deepEqual(good.conditions, []);
    assert.ok(r.stdout.includes('live-token-value'), 'annotations are not masked without the setting');
  });

  it('--argocd-cm FILE: health scripts, ignoreDifferences override, exclusions, masked annotations', async () => {
    const r = await diff(['-f', appsFile, '--argocd-cm', cmFile, '-o', 'json']);
    assert.equal(r.code, 1, r.stderr);
    const doc = json(r);
    const good = app(doc, 'good');
    assert.deepEqual(
      good.resources.map((x) => [x.kind, x.name, x.status, x.health]),
      [
        ['ConfigMap', 'masked', 'OutOfSync', 'Healthy'],
        ['ConfigMap', 'plain', 'Synced', 'Degraded'],
      ],
    );
    assert.equal(good.health, 'Degraded');
    assert.equal(good.healthMessage, 'Caused by ConfigMap:good/plain');
    assert.equal(good.resources[1]!.healthMessage, 'data a is 1');
    assert.deepEqual(good.conditions, [
      {
        type: 'ExcludedResourceWarning',
        message: 'Resource rbac.authorization.k8s.io/Role excluded is excluded in the settings',
      },
    ]);
    for (const value of ['git-token-value', 'live-token-value']) assert.ok(!r.stdout.includes(value), value);

    const bad = app(doc, 'bad');
    assert.equal(bad.health, 'Unknown');
    assert.match(bad.resources[0]!.healthMessage ?? '', /^<string>:4: attempt to index a nil value/);
    assert.deepEqual(
      bad.resources.map((x) => [x.name, x.status, x.health]),
      [
        ['broken', 'Synced', 'Unknown'],
        ['loop', 'Synced', 'Unknown'],
      ],
    );
    assert.equal(bad.conditions.length, 1);
    assert.equal(bad.conditions[0]!.type, 'ComparisonError');
    assert.match(
      bad.conditions[0]!.message,
      /^error setting app health: failed to get resource health for "ServiceAccount" with name "broken" in namespace "bad": <string>:4: attempt to index a nil value \(field 'status'\)$/,
    );

    const text = await diff(['-f', appsFile, '--argocd-cm', cmFile]);
    assert.equal(text.code, 1, text.stderr);
    assert.match(text.stdout, /health: +Degraded \(Caused by ConfigMap:good\/plain\)/);
    assert.match(text.stdout, /condition: +ComparisonError: error setting app health/);
    assert.ok(!text.stdout.includes('token-value'));
  });

  it('a script that never ends is stopped by the instruction limit: Unknown with the reason', async () => {
    const r = await diff(['-f', appsFile, 'bad', '--argocd-cm', cmFile, '-o', 'yaml']);
    assert.equal(r.code, 0, r.stderr);
    const doc = parse(r.stdout) as Doc;
    const loop = doc.apps[0]!.resources.find((x) => x.name === 'loop');
    assert.ok(loop);
    assert.equal(loop.health, 'Unknown');
    assert.match(loop.healthMessage ?? '', /^script stopped after 10000000 instructions \(timeout\)$/);
  });

  it('resource.compareoptions ignoreResourceStatusField: all (default) ignores status, none compares it', async () => {
    const stat = join(dir, 'stat.yaml');
    writeFileSync(stat, appYaml('stat', repo.url, 'stat', { namespace: 'good' }));
    await applyObjects(
      conn,
      await renderObjects(
        application('stat', repo.url, 'stat', { namespace: 'good' }),
        join(dir, 'render-cache'),
      ),
      'good',
    );
    const none = join(dir, 'status-none.yaml');
    writeFileSync(
      none,
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cm\ndata:\n  resource.compareoptions: |\n    ignoreResourceStatusField: none\n',
    );
    const all = await diff(['-f', stat, '--argocd-cm', cmFile, '-o', 'json']);
    assert.equal(all.code, 0, all.stdout + all.stderr);
    const r = await diff(['-f', stat, '--argocd-cm', none, '-o', 'json']);
    assert.equal(r.code, 1, r.stderr);
    assert.deepEqual(
      app(json(r), 'stat').resources.map((x) => [x.kind, x.status]),
      [['Service', 'OutOfSync']],
    );
  });

  it('--argocd-cm - reads stdin', async () => {
    const r = await diff(['-f', appsFile, 'good', '--argocd-cm', '-', '-o', 'json'], ARGOCD_CM);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(app(json(r), 'good').health, 'Degraded');
  });

  it('a bad argocd-cm is a usage error naming the file and key (exit 2)', async () => {
    const broken = join(dir, 'broken-cm.yaml');
    writeFileSync(broken, ARGOCD_CM.replace('kinds: [Role]', 'kinds: Role'));
    const r = await diff(['-f', appsFile, '--argocd-cm', broken]);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    assert.match(
      r.stderr,
      /^error: file .*broken-cm\.yaml: failed to read resource\.exclusions: entry 1 kinds must be a list of strings$/m,
    );
    const missing = await diff(['-f', appsFile, '--argocd-cm', join(dir, 'nope.yaml')]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /nope\.yaml: failed to read: no such file/);
  });

  it('--from-cluster: the live argocd-cm of the Argo CD namespace', async (t) => {
    if (needsEmbedded(t, 'fault injection (cluster.faults)')) return;
    const crdInfo: ResourceInfo = {
      group: 'apiextensions.k8s.io',
      version: 'v1',
      kind: 'CustomResourceDefinition',
      plural: 'customresourcedefinitions',
      namespaced: false,
      verbs: ['create'],
    };
    await conn.client.create(crdInfo, APPLICATION_CRD as unknown as KubeObject);
    await crdsEstablished(fx);
    await conn.discovery.refresh();
    const appInfo = await conn.discovery.resolve({ group: 'argoproj.io', kind: 'Application' });
    const manifest = parse(appYaml('good', repo.url, 'good', { namespace: 'good' })) as KubeObject;
    manifest.metadata = { name: 'good', namespace: 'argocd' };
    await conn.client.create(appInfo, manifest);

    const before = await diff(['--from-cluster', '-o', 'json']);
    assert.equal(before.code, 1, before.stderr);
    assert.match(
      before.stderr,
      /warning: configmap argocd\/argocd-cm not found: Argo CD's default settings are used/,
    );
    assert.equal(app(json(before), 'good').health, 'Healthy');

    await applyObjects(conn, [parse(readFileSync(cmFile, 'utf8')) as KubeObject], 'argocd');
    const r = await diff(['--from-cluster', '-o', 'json']);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr, '');
    const good = app(json(r), 'good');
    assert.equal(good.health, 'Degraded');
    assert.equal(good.resources.find((x) => x.name === 'plain')?.status, 'Synced');

    // A live argocd-cm that cannot be read is an error (exit 2), never silently Argo CD's defaults.
    const stop = fx.cluster.faults.failRequests({ verb: 'get', resource: 'configmaps', status: 500 });
    try {
      const failed = await diff(['--from-cluster', '-o', 'json']);
      assert.equal(failed.code, 2, failed.stderr);
      assert.equal(failed.stdout, '');
      assert.match(failed.stderr, /^error: .*argocd-cm.*: failed to get: /m);
    } finally {
      stop();
    }
  });

  it('sync judges health with the same Lua checks: a resource the script calls Degraded fails the sync', async () => {
    const r = await runCli(
      ['sync', '--kubeconfig', fx.kubeconfig, '-f', appsFile, 'good', '--argocd-cm', cmFile, '-o', 'json'],
      { env },
    );
    assert.equal(r.code, 1, r.stderr);
    const doc = JSON.parse(r.stdout) as {
      apps: Array<{
        phase: string;
        health: string;
        resources: Array<{ name: string; status: string; message: string }>;
      }>;
    };
    const op = doc.apps[0]!;
    assert.equal(op.phase, 'Failed');
    assert.equal(op.health, 'Degraded');
    const plain = op.resources.find((x) => x.name === 'plain');
    // gitops-engine keeps a task's result code (Synced) when it fails on its health: phase Failed, the health's message.
    assert.deepEqual([plain?.status, plain?.message], ['Synced', 'data a is 1']);
    assert.ok(!op.resources.some((x) => x.name === 'masked' && x.status === 'Synced'), 'wave 1 never ran');
    assert.ok(!op.resources.some((x) => x.name === 'excluded'), 'an excluded kind is not synced');
    for (const value of ['git-token-value', 'live-token-value']) assert.ok(!r.stdout.includes(value), value);
  });
});
