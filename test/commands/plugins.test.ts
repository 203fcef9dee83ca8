/**
 * Config management plugins in the CLI, on the embedded API server with a real Git repository laid out as
 * argocd-example-apps' plugin apps: a kustomized-helm app (`plugin: {}`, discovered by `find.glob`), a SOPS
 * wrapper discovered by a file (no plugin block at all), a named plugin with env and parameters, and a
 * named plugin nobody configured. `render`, `diff` and `sync` take the plugins from `--plugin-config`
 * (a folder holding a ConfigMap and a plugin.yaml) or, with `--from-cluster`, from the repo-server's
 * sidecars as Argo CD installs them (a ConfigMap mounted at /home/argocd/cmp-server/config/plugin.yaml).
 * `npm test` builds first; run `npm run build` before running this file alone.
 */
import { strict as assert } from 'node:assert';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import type { ClusterConnection, KubeObject } from '../../src/cluster/index.js';
import { APPLICATION_CRD } from '../support/argocd.js';
import { runCli } from '../support/cli.js';
import { api, useEmbeddedCluster, crdsEstablished } from '../support/embedded.js';
import { appYaml, TestRepo, tempDir } from '../support/git.js';
import { connectAs, createNamespaces } from '../controller/setup.js';
import { repoRoot } from '../support/paths.js';

const FIXTURES = join(repoRoot, 'test', 'fixtures', 'plugins');
const fixture = (path: string) => readFileSync(join(FIXTURES, path), 'utf8');

/** Every file under the fixture repository, as TestRepo.commit takes them. */
function repoFiles(dir = join(FIXTURES, 'repo'), prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) Object.assign(out, repoFiles(join(dir, e.name), rel));
    else out[rel] = readFileSync(join(dir, e.name), 'utf8');
  }
  return out;
}

/** The plugins of the ConfigMap fixture, by key. */
const cmpData = (parse(fixture('config/argocd-cmp-cm.yaml')) as { data: Record<string, string> }).data;

describe('config management plugins in the CLI (embedded cluster)', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const dir = tempDir('kg-cli-plugins-');
  const env = { XDG_CACHE_HOME: join(dir, 'cache') };
  const appFile = join(dir, 'apps.yaml');
  const pluginDir = join(dir, 'plugins');
  let conn: ClusterConnection;
  let sha = '';

  /** An Application of the repository; `plugin` is the YAML of `spec.source.plugin`, if any. */
  const app = (name: string, path: string, plugin?: string) =>
    appYaml(name, repo.url, path, {
      namespace: 'plugins',
      ...(plugin ? { source: `    plugin: ${plugin}\n` } : {}),
    });

  before(async () => {
    sha = repo.commit(repoFiles());
    writeFileSync(
      appFile,
      [
        app('kustomized-helm', 'plugins/kustomized-helm', '{}'),
        app('sops', 'plugins/sops'),
        app(
          'env',
          'plugins/env',
          '{name: envcm, env: [{name: GREETING, value: "hi from $ARGOCD_APP_NAMESPACE"}], parameters: [{name: image.tag, string: v1.2.3}]}',
        ),
      ].join('---\n'),
    );
    // A folder of plugins: a plugin.yaml file, and the Helm chart's ConfigMap form holding two more.
    mkdirSync(pluginDir);
    writeFileSync(join(pluginDir, 'kustomized-helm.yaml'), fixture('config/kustomized-helm-shell.yaml'));
    writeFileSync(join(pluginDir, 'argocd-cmp-cm.yaml'), fixture('config/argocd-cmp-cm.yaml'));
    conn = await connectAs(fx);
    await createNamespaces(conn, ['argocd', 'plugins']);
  });

  after(() => conn?.close());

  const names = (objects: KubeObject[]) => objects.map((o) => `${o.kind}/${o.metadata?.name}`).sort();

  it('render: each plugin app renders through its plugin, with its env and parameters', async () => {
    const r = await runCli(['render', '-f', appFile, '--plugin-config', pluginDir, '-o', 'json'], { env });
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { apps: { name: string; objects: KubeObject[] }[] };
    const by = new Map(out.apps.map((a) => [a.name, a.objects]));
    assert.deepEqual(names(by.get('kustomized-helm')!), ['ConfigMap/kustomized-helm-ui']);
    assert.equal((by.get('kustomized-helm')![0]!['data'] as Record<string, string>)['replicas'], '3');
    assert.deepEqual(names(by.get('sops')!), ['ConfigMap/decrypted']);
    assert.deepEqual(by.get('env')![0]!['data'], {
      greeting: 'hi from plugins',
      tag: 'v1.2.3',
      rev: sha.slice(0, 7),
      // render reads no cluster: empty, as Argo CD sends them when it does not know the cluster.
      kube: '',
      configmaps: '0',
    });
  });

  it('without the plugin: the app fails naming the plugin and the flag, the others render (exit 2)', async () => {
    const r = await runCli(
      ['render', '-f', appFile, '--plugin-config', join(pluginDir, 'kustomized-helm.yaml'), '-o', 'json'],
      { env },
    );
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /error: app "env": failed to render plugins\/env from .*: config management plugin "envcm" is needed: no plugin is named "envcm" \(configured: kustomized-helm\); pass its plugin\.yaml with --plugin-config/,
    );
    const out = JSON.parse(r.stdout) as { apps: { name: string; objects: KubeObject[] }[] };
    // sops has no plugin block: without its plugin it is a kustomize app again (resources: []).
    const by = new Map(out.apps.map((a) => [a.name, a.objects.length]));
    assert.equal(by.get('kustomized-helm'), 1);
    assert.equal(by.get('sops'), 0);
  });

  it('a bad --plugin-config file is a usage error naming it, before anything renders', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(
      bad,
      'apiVersion: argoproj.io/v1alpha1\nkind: ConfigManagementPlugin\nmetadata: {name: x}\nspec: {}\n',
    );
    const r = await runCli(['render', '-f', appFile, '--plugin-config', bad], { env });
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /bad\.yaml \(document 1\): failed to read plugin configuration: invalid plugin configuration file\. spec\.generate command should be non-empty/,
    );
  });

  it('diff then sync a plugin app; diff afterwards finds it Synced', async () => {
    const base = ['-f', appFile, '--plugin-config', pluginDir, '--kubeconfig', fx.kubeconfig];
    const before = await runCli(['diff', ...base, '--exit-code'], { env });
    assert.equal(before.code, 1, before.stderr);
    assert.match(before.stdout, /kustomized-helm-ui/);
    const sync = await runCli(['sync', ...base, '-o', 'json'], { env });
    assert.equal(sync.code, 0, sync.stderr);
    const report = JSON.parse(sync.stdout) as { apps: { name: string; phase: string; sync: string }[] };
    assert.deepEqual(report.apps.map((a) => `${a.name} ${a.phase} ${a.sync}`).sort(), [
      'env Succeeded Synced',
      'kustomized-helm Succeeded Synced',
      'sops Succeeded Synced',
    ]);
    const after = await runCli(['diff', ...base, '--exit-code'], { env });
    assert.equal(after.code, 0, after.stdout + after.stderr);
    const cms = await conn.client.get(
      { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true, verbs: ['get'] },
      'plugins',
      'kustomized-helm-ui',
    );
    assert.equal((cms['data'] as Record<string, string>)['replicas'], '3');
    // The env app's plugin saw the destination cluster: its version and API versions (embedded: 1.32.0).
    const envCm = await conn.client.get(
      { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true, verbs: ['get'] },
      'plugins',
      'env-env',
    );
    const version = (await api(fx.cluster, 'GET', '/version')).body as { gitVersion: string };
    assert.equal(
      (envCm['data'] as Record<string, string>)['kube'],
      /^v(\d+\.\d+\.\d+)/.exec(version.gitVersion)?.[1],
    );
    assert.equal((envCm['data'] as Record<string, string>)['configmaps'], '1');
  });

  it('--from-cluster reads the plugins of the repo-server sidecars (ConfigMaps mounted as plugin.yaml)', async () => {
    const cmInfo = await conn.discovery.resolve({ group: '', kind: 'ConfigMap' });
    await conn.client.create(cmInfo, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'argocd-cmp-cm', namespace: 'argocd' },
      data: {
        'kustomized-helm.yaml': fixture('config/kustomized-helm-shell.yaml'),
        'sops.yaml': cmpData['sops.yaml']!,
        'unused.yaml': cmpData['envcm.yaml']!,
      },
    });
    const sidecar = (name: string, key: string) => ({
      name,
      image: 'busybox',
      command: ['/var/run/argocd/argocd-cmp-server'],
      volumeMounts: [
        { name: 'var-files', mountPath: '/var/run/argocd' },
        { name: 'cmp', mountPath: '/home/argocd/cmp-server/config/plugin.yaml', subPath: key },
      ],
    });
    const deployInfo = await conn.discovery.resolve({ group: 'apps', kind: 'Deployment' });
    await conn.client.create(deployInfo, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'argocd-repo-server',
        namespace: 'argocd',
        labels: { 'app.kubernetes.io/component': 'repo-server' },
      },
      spec: {
        selector: { matchLabels: { app: 'repo' } },
        template: {
          metadata: { labels: { app: 'repo' } },
          spec: {
            containers: [
              { name: 'argocd-repo-server', image: 'quay.io/argoproj/argocd' },
              sidecar('kustomized-helm', 'kustomized-helm.yaml'),
              sidecar('sops', 'sops.yaml'),
              // Its plugin.yaml is in its image: said in the error of an app that needs it.
              { name: 'avp', image: 'avp', command: ['/var/run/argocd/argocd-cmp-server'] },
            ],
            volumes: [
              { name: 'var-files', emptyDir: {} },
              { name: 'cmp', configMap: { name: 'argocd-cmp-cm' } },
            ],
          },
        },
      },
    });
    const crdInfo = await conn.discovery.resolve({
      group: 'apiextensions.k8s.io',
      kind: 'CustomResourceDefinition',
    });
    await conn.client.create(crdInfo, APPLICATION_CRD as unknown as KubeObject);
    await crdsEstablished(fx);
    await conn.discovery.refresh();
    const appInfo = await conn.discovery.resolve({ group: 'argoproj.io', kind: 'Application' });
    for (const doc of readFileSync(appFile, 'utf8').split('---\n')) {
      const manifest = parse(doc) as KubeObject;
      manifest.metadata = { name: manifest.metadata!.name!, namespace: 'argocd' };
      await conn.client.create(appInfo, manifest);
    }
    const r = await runCli(['render', '--kubeconfig', fx.kubeconfig, '--from-cluster', '-o', 'json'], {
      env,
    });
    assert.equal(r.code, 2, r.stderr);
    const out = JSON.parse(r.stdout) as { apps: { name: string; objects: KubeObject[] }[] };
    const by = new Map(out.apps.map((a) => [a.name, a.objects]));
    assert.deepEqual(names(by.get('kustomized-helm')!), ['ConfigMap/kustomized-helm-ui']);
    assert.deepEqual(names(by.get('sops')!), ['ConfigMap/decrypted']);
    // envcm is in the ConfigMap but no sidecar mounts it: Argo CD does not have it either.
    assert.match(
      r.stderr,
      /app "env": .*config management plugin "envcm" is needed: no plugin is named "envcm" \(configured: kustomized-helm, sops-v1\.0\); pass its plugin\.yaml with --plugin-config; deployment argocd\/argocd-repo-server container avp: its plugin\.yaml is not mounted from a ConfigMap \(in its image\?\)/,
    );
    // A --plugin-config file adds the missing plugin to the live ones.
    const both = await runCli(
      ['render', '--kubeconfig', fx.kubeconfig, '--from-cluster', '--plugin-config', pluginDir, '-o', 'json'],
      { env },
    );
    assert.equal(both.code, 0, both.stderr);
  });
});
