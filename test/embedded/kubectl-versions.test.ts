/**
 * The embedded API server against every kubectl version on the machine, not only the one on PATH: the
 * versioned binaries Google's `kubectl` package installs beside its default one (`kubectl.1.27` ...
 * `kubectl.1.33` in /usr/lib/google-cloud-sdk/bin), any `kubectl.1.NN` on PATH, and the files
 * `KUBECTL_VERSIONS` names (colon-separated). Each runs what users run against a cluster: client-side
 * apply (create, unchanged), diff through a server-side dry run, server-side apply, patch of each type,
 * get -o wide, explain, get -w, delete --cascade=foreground. A machine with none of them skips this file
 * (test/embedded/kubectl.test.ts covers the kubectl on PATH).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { useEmbeddedCluster } from '../support/embedded.js';

const GCLOUD_BIN = '/usr/lib/google-cloud-sdk/bin';

/** The versioned kubectl binaries found, one per minor version, by version ("1.28" -> path). */
function versionedKubectls(): Map<string, string> {
  const found = new Map<string, string>();
  const named = (process.env['KUBECTL_VERSIONS'] ?? '').split(':').filter((p) => p && existsSync(p));
  for (const path of named) found.set(path, path);
  for (const dir of [GCLOUD_BIN, ...(process.env['PATH'] ?? '').split(delimiter)]) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const m = /^kubectl\.(1\.\d+)$/.exec(name);
      if (m && !found.has(m[1]!)) found.set(m[1]!, join(dir, name));
    }
  }
  return found;
}

const kubectls = versionedKubectls();

describe(
  'kubectl versions against the embedded server',
  {
    concurrency: true,
    skip:
      kubectls.size === 0 ? 'no versioned kubectl (kubectl.1.NN, KUBECTL_VERSIONS) on this machine' : false,
  },
  () => {
    const fx = useEmbeddedCluster();
    for (const [version, binary] of kubectls) {
      it(`kubectl ${version}: apply, diff, server-side apply, patch, get, explain, watch, delete`, async () => {
        const ns = `kubectl-${version.replace(/\W/g, '-')}`;
        const run = (args: string[]) =>
          new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
            execFile(
              binary,
              args,
              {
                env: { ...process.env, KUBECONFIG: fx.kubeconfig, KUBECACHEDIR: join(fx.dir, `cache-${ns}`) },
                timeout: 30_000,
              },
              (err, stdout, stderr) =>
                resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
            ),
          );
        const ok = async (args: string[], expect: RegExp): Promise<string> => {
          const r = await run(args);
          assert.equal(r.code, 0, `kubectl ${version} ${args.join(' ')}: ${r.stderr}`);
          assert.match(r.stdout, expect, `kubectl ${version} ${args.join(' ')}`);
          return r.stdout;
        };
        const file = join(fx.dir, `${ns}.yaml`);
        const manifest = (replicas: number) =>
          writeFileSync(
            file,
            `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ${ns}}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: "nginx:1.25", ports: [{containerPort: 80}]}]
`,
          );
        await ok(['create', 'namespace', ns], /created/);
        manifest(2);
        await ok(['apply', '-f', file], /deployment\.apps\/web created/);
        await ok(['apply', '-f', file], /deployment\.apps\/web unchanged/);
        manifest(4);
        const diff = await run(['diff', '-f', file]);
        assert.equal(diff.code, 1, `kubectl ${version} diff: ${diff.stderr}`);
        assert.match(diff.stdout, /^- {2}replicas: 2$/m);
        assert.match(diff.stdout, /^\+ {2}replicas: 4$/m);
        await ok(['apply', '--server-side', '--force-conflicts', '-f', file], /serverside-applied/);
        const patch = (type: string, body: string) =>
          ok(['-n', ns, 'patch', 'deployment', 'web', '--type', type, '-p', body], /patched/);
        await patch('merge', '{"metadata":{"labels":{"merge":"1"}}}');
        await patch('json', '[{"op":"add","path":"/metadata/labels/json","value":"2"}]');
        await patch(
          'strategic',
          '{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"nginx:1.26"}]}}}}',
        );
        await ok(
          ['-n', ns, 'get', 'deployment', 'web', '-o', 'wide', '--no-headers'],
          /^web +0\/4 .* c +nginx:1\.26 +app=web$/m,
        );
        const labels = JSON.parse(
          await ok(['-n', ns, 'get', 'deployment', 'web', '-o', 'json'], /"kind"/),
        ) as {
          metadata: { labels: Record<string, string> };
          spec: { replicas: number };
        };
        assert.deepEqual(labels.metadata.labels, { merge: '1', json: '2' });
        assert.equal(labels.spec.replicas, 4);
        await ok(['explain', 'deployment.spec.replicas'], /replicas.*<integer>/);
        await ok(['-n', ns, 'get', 'deployment', '-w', '--request-timeout', '1s', '--no-headers'], /^web /m);
        await ok(['-n', ns, 'delete', 'deployment', 'web', '--cascade=foreground'], /deleted/);
        const gone = await run(['-n', ns, 'get', 'deployment', 'web']);
        assert.notEqual(gone.code, 0);
        assert.match(gone.stderr, /NotFound|not found/);
      });
    }
  },
);
