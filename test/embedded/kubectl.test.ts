/**
 * The real kubectl against the embedded server: get, client-side apply (strategic merge patch with the
 * last-applied annotation), server-side apply with conflicts and --force-conflicts, custom resources
 * (JSON merge patch, printer columns), get -w, and delete. Skipped when kubectl is not installed.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { hasKubectl, kubectl, useEmbeddedCluster } from '../support/embedded.js';

const deployment = (replicas: number, image: string) => `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: nginx
        image: ${image}
        ports: [{containerPort: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80}]
`;

const crd = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, shortNames: [wd]}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
`;

describe('kubectl against the embedded server', { skip: !hasKubectl && 'kubectl is not installed' }, () => {
  const fx = useEmbeddedCluster();

  it('kubectl get lists the bootstrap namespaces', async () => {
    const r = await kubectl(fx, ['get', 'namespaces', '-o', 'name']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n'), [
      'namespace/default',
      'namespace/kube-node-lease',
      'namespace/kube-public',
      'namespace/kube-system',
    ]);
    const table = await kubectl(fx, ['get', 'namespaces']);
    assert.match(table.stdout, /^NAME\s+STATUS\s+AGE\n/); // printers.go namespace columns (issue 9)
  });

  it('client-side apply creates, then patches with a strategic merge patch', async () => {
    const file = join(fx.dir, 'web.yaml');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, deployment(2, 'nginx:1.25'));
    const first = await kubectl(fx, ['apply', '-f', file]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /deployment.apps\/web created/);
    writeFileSync(file, deployment(3, 'nginx:1.26'));
    const second = await kubectl(fx, ['apply', '-f', file]);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /deployment.apps\/web configured/);
    assert.match(second.stdout, /service\/web unchanged/);
    const got = JSON.parse(
      (await kubectl(fx, ['get', 'deployment', 'web', '-o', 'json', '--show-managed-fields'])).stdout,
    );
    assert.equal(got.spec.replicas, 3);
    assert.equal(got.spec.template.spec.containers[0].image, 'nginx:1.26');
    assert.equal(got.metadata.generation, 2);
    assert.ok(got.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
    assert.equal(got.metadata.managedFields[0].manager, 'kubectl-client-side-apply');
  });

  it('server-side apply reports conflicts with the client-side manager, and --force-conflicts takes over', async () => {
    const file = join(fx.dir, 'web.yaml');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, deployment(5, 'nginx:1.26'));
    const conflict = await kubectl(fx, ['apply', '--server-side', '-f', file]);
    assert.notEqual(conflict.code, 0);
    assert.match(
      conflict.stderr,
      /conflict with "kubectl-client-side-apply" using apps\/v1: \.spec\.replicas/,
    );
    const forced = await kubectl(fx, ['apply', '--server-side', '--force-conflicts', '-f', file]);
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(forced.stdout, /deployment.apps\/web serverside-applied/);
    const got = JSON.parse(
      (await kubectl(fx, ['get', 'deployment', 'web', '-o', 'json', '--show-managed-fields'])).stdout,
    );
    assert.equal(got.spec.replicas, 5);
    assert.ok(
      got.metadata.managedFields.some(
        (e: { manager: string; operation: string }) => e.manager === 'kubectl' && e.operation === 'Apply',
      ),
    );
  });

  it('kubectl get --sort-by and custom columns read the whole object (Table includeObject=Object)', async () => {
    for (const [name, k] of [
      ['sort-b', '2'],
      ['sort-a', '3'],
      ['sort-c', '1'],
    ] as const) {
      const r = await kubectl(fx, ['create', 'configmap', name, `--from-literal=k=${k}`, '-n', 'default']);
      assert.equal(r.code, 0, r.stderr);
    }
    const sorted = await kubectl(fx, [
      'get',
      'configmaps',
      '-n',
      'default',
      '--sort-by=.data.k',
      '-o',
      'name',
    ]);
    assert.equal(sorted.code, 0, sorted.stderr);
    assert.deepEqual(
      sorted.stdout
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('configmap/sort-')),
      ['configmap/sort-c', 'configmap/sort-b', 'configmap/sort-a'],
    );
    const table = await kubectl(fx, [
      'get',
      'configmaps',
      '-n',
      'default',
      '--sort-by=.data.k',
      '--no-headers',
    ]);
    assert.equal(table.code, 0, table.stderr);
    assert.deepEqual(
      table.stdout
        .split('\n')
        .filter((l) => l.startsWith('sort-'))
        .map((l) => l.split(/\s+/)[0] ?? ''),
      ['sort-c', 'sort-b', 'sort-a'],
    );
  });

  it('kubectl scale changes replicas through the scale subresource', async () => {
    const r = await kubectl(fx, ['scale', 'deployment', 'web', '--replicas=1']);
    assert.equal(r.code, 0, r.stderr);
    const got = await kubectl(fx, ['get', 'deployment', 'web', '-o', 'jsonpath={.spec.replicas}']);
    assert.equal(got.stdout, '1');
  });

  it('applies a CRD and its custom resources, and prints their columns', async () => {
    const r = await kubectl(fx, ['apply', '-f', '-'], crd);
    assert.equal(r.code, 0, r.stderr);
    const wait = await kubectl(fx, [
      'wait',
      '--for',
      'condition=established',
      'crd/widgets.example.com',
      '--timeout=10s',
    ]);
    assert.equal(wait.code, 0, wait.stderr);
    const w = (size: number) =>
      `apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {size: ${size}}\n`;
    assert.equal((await kubectl(fx, ['apply', '-f', '-'], w(1))).code, 0);
    const again = await kubectl(fx, ['apply', '-f', '-'], w(2));
    assert.equal(again.code, 0, again.stderr);
    const table = await kubectl(fx, ['get', 'wd']);
    assert.match(table.stdout, /^NAME\s+SIZE\s+AGE\nw1\s+2\s+/);
  });

  it('kubectl get -w streams changes', async () => {
    const child = spawn('kubectl', ['get', 'configmaps', '-w', '--output-watch-events', '-o', 'json'], {
      env: { ...process.env, KUBECONFIG: fx.kubeconfig, KUBECACHEDIR: join(fx.dir, 'kube-cache') },
    });
    let out = '';
    let exited = false;
    const waiters = new Set<() => void>();
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      for (const w of waiters) w();
    });
    child.on('exit', () => {
      exited = true;
      for (const w of waiters) w();
    });
    const seen = (text: string | RegExp) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (typeof text === 'string' ? out.includes(text) : text.test(out)) {
            waiters.delete(check);
            resolve();
          } else if (exited) {
            waiters.delete(check);
            reject(new Error(`kubectl exited before ${String(text)}: ${out}`));
          }
        };
        waiters.add(check);
        check();
      });
    try {
      const created = (async () => {
        // Create only after the watch is open: kubectl prints nothing for an empty list, so poll by writing.
        for (let i = 0; !out.includes('ADDED'); i++) {
          await kubectl(
            fx,
            ['create', '-f', '-'],
            `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"watched-${i}"}}`,
          );
          await new Promise((r) => setTimeout(r, 50));
        }
      })();
      await seen(/"ADDED"[^]*"name":\s*"watched-\d+"/);
      await created;
      const name = /"name":\s*"(watched-\d+)"/.exec(out)?.[1] ?? 'missing';
      await kubectl(fx, ['label', 'configmap', name, 'x=y']);
      await seen('"MODIFIED"');
      await kubectl(fx, ['delete', 'configmap', name]);
      await seen('"DELETED"');
    } finally {
      child.kill();
    }
  });

  it('kubectl create generators (protobuf bodies) work for namespaces, configmaps, secrets and service accounts', async () => {
    const ns = await kubectl(fx, ['create', 'namespace', 'scratch']);
    assert.equal(ns.code, 0, ns.stderr);
    const cm = await kubectl(fx, ['create', 'configmap', 'gen', '-n', 'scratch', '--from-literal=a=b']);
    assert.equal(cm.code, 0, cm.stderr);
    const secret = await kubectl(fx, [
      'create',
      'secret',
      'generic',
      'gen',
      '-n',
      'scratch',
      '--from-literal=u=p',
    ]);
    assert.equal(secret.code, 0, secret.stderr);
    assert.equal((await kubectl(fx, ['create', 'serviceaccount', 'gen', '-n', 'scratch'])).code, 0);
    const data = await kubectl(fx, [
      'get',
      'secret',
      'gen',
      '-n',
      'scratch',
      '-o',
      'jsonpath={.type} {.data.u}',
    ]);
    assert.equal(data.stdout, 'Opaque cA==');
    const deploy = await kubectl(fx, ['create', 'deployment', 'gen', '-n', 'scratch', '--image=nginx']);
    assert.notEqual(deploy.code, 0);
    assert.match(deploy.stderr, /protobuf is accepted for .* only, not apps\/v1\/Deployment/);
  });

  it('kubectl delete removes objects and waits for them to go', async () => {
    const r = await kubectl(fx, ['delete', '-f', join(fx.dir, 'web.yaml')]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /deployment.apps "web" deleted/);
    const left = await kubectl(fx, ['get', 'deployments', '-o', 'name']);
    assert.equal(left.stdout.trim(), '');
    const ns = await kubectl(fx, ['delete', 'namespace', 'scratch']);
    assert.equal(ns.code, 0, ns.stderr);
    const kept = await kubectl(fx, ['delete', 'namespace', 'default']);
    assert.match(kept.stderr, /this namespace may not be deleted/);
  });
});
