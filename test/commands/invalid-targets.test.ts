/**
 * A target the API server would reject is never Synced (issue 12): `diff` reports it OutOfSync naming the
 * field, even where the comparison alone would say Synced (its field is in ignoreDifferences), and `sync`
 * refuses it at its server-side dry run with nothing written. The built CLI as a process against the
 * embedded API server and a real Git repository. `npm test` builds first; run `npm run build` before
 * running this file alone.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isNotFound } from '../../src/cluster/index.js';
import { runCli } from '../support/cli.js';
import { connectAs } from '../controller/setup.js';
import { useEmbeddedCluster } from '../support/embedded.js';
import { appYaml, cm, TestRepo, tempDir } from '../support/git.js';

function deployment(port: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: nginx
          ports:
            - containerPort: ${port}
`;
}

const PORT_FIELD = 'spec.template.spec.containers[0].ports[0].containerPort';

interface JsonReport {
  apps: Array<{
    sync: string;
    conditions: Array<{ type: string; message: string }>;
    resources: Array<{ kind: string; name: string; status: string; message?: string }>;
  }>;
}

describe('invalid targets: diff and sync (CLI, embedded cluster)', () => {
  const fx = useEmbeddedCluster({ simulateWorkloads: true });
  const repo = new TestRepo();
  const dir = tempDir('kg-invalid-');
  const env = { XDG_CACHE_HOME: join(dir, 'cache') };
  const appFile = join(dir, 'app.yaml');
  const kube = (): string[] => ['-f', appFile, '--kubeconfig', fx.kubeconfig];

  it('a string containerPort is OutOfSync naming the field (exit 1) even when ignoreDifferences hides it; sync writes nothing', async () => {
    // The ports are ignored: the comparison alone would call the Deployment Synced.
    writeFileSync(
      appFile,
      appYaml('shop', repo.url, 'shop', {
        namespace: 'shop',
        spec: `  syncPolicy:
    syncOptions: [CreateNamespace=true]
  ignoreDifferences:
    - group: apps
      kind: Deployment
      jsonPointers: [/spec/template/spec/containers/0/ports]
`,
      }),
    );
    repo.commit({ 'shop/web.yaml': deployment('8080'), 'shop/a.yaml': cm('a') });
    const first = await runCli(['sync', ...kube()], { env });
    assert.equal(first.code, 0, first.stdout + first.stderr);

    repo.commit({
      'shop/web.yaml': deployment('"8080"'),
      'shop/a.yaml': cm('a', '  labels: {tier: front}\n'),
      'shop/b.yaml': cm('b'),
    });
    const diff = await runCli(['diff', ...kube(), '-o', 'json'], { env });
    assert.equal(diff.code, 1, diff.stderr);
    const app = (JSON.parse(diff.stdout) as JsonReport).apps[0]!;
    assert.equal(app.sync, 'OutOfSync');
    const web = app.resources.find((r) => r.kind === 'Deployment')!;
    assert.equal(web.status, 'OutOfSync');
    assert.equal(
      web.message,
      `invalid: ${PORT_FIELD}: Invalid value: "string": ${PORT_FIELD} in body must be of type integer: "string"`,
    );
    const conditions = app.conditions.filter((c) => c.type === 'ComparisonError');
    assert.equal(conditions.length, 1, JSON.stringify(app.conditions));
    assert.ok(conditions[0]!.message.startsWith(`apps/Deployment shop/web: ${PORT_FIELD}: `));

    const text = await runCli(['diff', ...kube()], { env });
    assert.equal(text.code, 1);
    assert.ok(text.stdout.includes(PORT_FIELD), text.stdout);

    // Sync: the dry run (a strategic merge patch of the live Deployment) is refused by the server itself
    // (422 on the patch, the unstructured converter's words); nothing is written, neither the Deployment
    // nor the ConfigMaps changed or created alongside it.
    const sync = await runCli(['sync', ...kube()], { env });
    assert.notEqual(sync.code, 0);
    assert.match(
      sync.stdout + sync.stderr,
      /apps\/Deployment shop\/web: failed to patch: {2}"" is invalid: patch: Invalid value: "map\[.*\]": unrecognized type: int32/,
    );
    const conn = await connectAs(fx);
    try {
      const info = (kind: string, group: string, plural: string) => ({
        group,
        version: 'v1',
        kind,
        plural,
        namespaced: true,
        verbs: ['get'],
      });
      const live = await conn.client.get(info('Deployment', 'apps', 'deployments'), 'shop', 'web');
      assert.deepEqual(
        (live?.['spec'] as { template: { spec: { containers: Array<{ ports: unknown }> } } }).template.spec
          .containers[0]!.ports,
        [{ containerPort: 8080, protocol: 'TCP' }],
      );
      const a = await conn.client.get(info('ConfigMap', '', 'configmaps'), 'shop', 'a');
      assert.equal(a?.metadata?.labels?.['tier'], undefined, 'ConfigMap a was not changed');
      await assert.rejects(conn.client.get(info('ConfigMap', '', 'configmaps'), 'shop', 'b'), (err) =>
        isNotFound(err),
      );
    } finally {
      conn.close();
    }
  });

  it('a Secret whose data is not base64 and a Service with an invalid name: named, values never shown', async () => {
    writeFileSync(appFile, appYaml('vault', repo.url, 'vault', { namespace: 'shop' }));
    repo.commit({
      'vault/secret.yaml':
        'apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\ndata:\n  password: hunter2-plain\n',
      'vault/svc.yaml':
        'apiVersion: v1\nkind: Service\nmetadata:\n  name: 9api\nspec:\n  ports: [{port: 80}]\n',
    });
    const diff = await runCli(['diff', ...kube(), '-o', 'json'], { env });
    assert.equal(diff.code, 1, diff.stderr);
    assert.ok(!diff.stdout.includes('hunter2'), 'the Secret value never reaches the output');
    const app = (JSON.parse(diff.stdout) as JsonReport).apps[0]!;
    const byKind = new Map(app.resources.map((r) => [r.kind, r]));
    assert.equal(
      byKind.get('Secret')!.message,
      'invalid: data[password]: Invalid value: illegal base64 data at input byte 7',
    );
    assert.match(
      byKind.get('Service')!.message!,
      /^invalid: metadata\.name: Invalid value: "9api": a DNS-1035 label/,
    );
    assert.equal(app.conditions.filter((c) => c.type === 'ComparisonError').length, 2);
  });
});
