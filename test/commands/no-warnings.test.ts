/**
 * No warnings that are not the user's business (issue 31): a first sync of a fleet and the diffs after it
 * print no Node warning on stderr (a `MaxListenersExceededWarning` was printed by a first sync of 10,000
 * objects: waits and requests each put a listener on the run's one signal). And the comparison memo on
 * disk changes no output: the diff of a drifted fleet is the same cold, warm and with `--hard-refresh`
 * (no memo).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { runCli } from '../support/cli.js';
import { useEmbeddedCluster } from '../support/embedded.js';
import { TestRepo, tempDir } from '../support/git.js';

const APPS = 30;
const NAMESPACES = 4;

function appFiles(i: number): string {
  const labels = { app: `app-${i}` };
  const objs: object[] = [];
  for (let c = 0; c < 6; c++)
    objs.push({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `app-${i}-cm-${c}` },
      data: { k: `v-${i}-${c}` },
    });
  objs.push({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: `app-${i}-sa` } });
  objs.push({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: `app-${i}-web` },
    spec: { selector: labels, ports: [{ port: 80, targetPort: 8080 }] },
  });
  objs.push({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: `app-${i}-web` },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] } },
    },
  });
  return objs.map((o) => stringify(o)).join('---\n');
}

describe('no Node warnings on stderr; the comparison memo changes no output (CLI)', () => {
  const fx = useEmbeddedCluster();

  it(`a first sync of ${APPS * 9} objects and the diffs after it`, async () => {
    const repo = new TestRepo();
    const dir = tempDir('kg-no-warnings-');
    try {
      const files: Record<string, string> = {};
      for (let i = 0; i < APPS; i++) files[`apps/app-${i}/all.yaml`] = appFiles(i);
      repo.commit(files);
      const appsDir = join(dir, 'apps');
      mkdirSync(appsDir);
      for (let i = 0; i < APPS; i++)
        writeFileSync(
          join(appsDir, `app-${i}.yaml`),
          stringify({
            apiVersion: 'argoproj.io/v1alpha1',
            kind: 'Application',
            metadata: { name: `app-${i}`, namespace: 'argocd' },
            spec: {
              project: 'default',
              source: { repoURL: repo.url, path: `apps/app-${i}`, targetRevision: 'HEAD' },
              destination: { server: 'https://kubernetes.default.svc', namespace: `nw-${i % NAMESPACES}` },
              syncPolicy: { syncOptions: ['CreateNamespace=true'] },
            },
          }),
        );
      const env = { XDG_CACHE_HOME: join(dir, 'cache') };
      const base = ['-f', appsDir, '--kubeconfig', fx.kubeconfig];
      const noWarning = (what: string, stderr: string) => {
        assert.doesNotMatch(stderr, /Warning|\(node:\d+\)/, `${what}: ${stderr.slice(0, 2000)}`);
      };

      const sync = await runCli(['sync', ...base, '--async', '--operation-processors', '8', '-o', 'json'], {
        env,
      });
      assert.equal(sync.code, 0, sync.stderr);
      noWarning('sync', sync.stderr);

      // Drift two objects by another hand, so the diff has something to say.
      const clean = await runCli(['diff', ...base, '-o', 'name'], { env });
      assert.equal(clean.code, 0, `in sync after the sync: ${clean.stdout}${clean.stderr}`);
      noWarning('diff', clean.stderr);
      const { connect } = await import('../../src/cluster/index.js');
      const conn = await connect({ kubeconfig: fx.kubeconfig, client: { fieldManager: 'kubectl-edit' } });
      try {
        const cm = await conn.discovery.resolve({ group: '', kind: 'ConfigMap' });
        await conn.client.patch(cm, 'nw-1', 'app-5-cm-2', { data: { k: 'drifted' } }, 'merge');
        const deploy = await conn.discovery.resolve({ group: 'apps', kind: 'Deployment' });
        await conn.client.patch(deploy, 'nw-3', 'app-7-web', { spec: { replicas: 4 } }, 'merge');
      } finally {
        conn.close();
      }

      const outputs: string[] = [];
      for (const extra of [[], [], ['--hard-refresh']]) {
        const r = await runCli(['diff', ...base, ...extra], { env });
        assert.equal(r.code, 1, r.stderr);
        noWarning('diff', r.stderr);
        outputs.push(r.stdout);
      }
      assert.match(outputs[0]!, /app-5-cm-2/);
      assert.match(outputs[0]!, /app-7-web/);
      assert.equal(outputs[1], outputs[0], 'warm memo: the same diff');
      assert.equal(outputs[2], outputs[0], 'no memo (--hard-refresh): the same diff');
    } finally {
      repo.remove();
    }
  });
});
