import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadKubeConfig, resolveDestination, connect } from '../../src/cluster/index.js';
import { GitopsError, UsageError } from '../../src/common/index.js';

const kubeconfig = `apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev-cluster
  cluster: { server: "https://dev.example:6443/" }
- name: prod-cluster
  cluster: { server: "https://prod.example:6443" }
contexts:
- name: dev
  context: { cluster: dev-cluster, user: u }
- name: prod
  context: { cluster: prod-cluster, user: u }
- name: prod-admin
  context: { cluster: prod-cluster, user: u }
users:
- name: u
  user: { token: t }
`;

describe('kubeconfig and destinations', () => {
  let dir: string;
  let file: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'gitops-kc-'));
    file = join(dir, 'config');
    writeFileSync(file, kubeconfig);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('an empty file is "not a kubeconfig", as a usage error naming the file', async () => {
    const empty = join(dir, 'empty');
    writeFileSync(empty, '');
    await assert.rejects(
      loadKubeConfig({ kubeconfig: empty }),
      (e: unknown) =>
        e instanceof UsageError &&
        e.message ===
          `kubeconfig ${empty}: failed to load: not a kubeconfig (empty, or no clusters/contexts/users)`,
    );
  });

  it('loads --kubeconfig and applies --context', async () => {
    const kc = await loadKubeConfig({ kubeconfig: file });
    assert.equal(kc.getCurrentContext(), 'dev');
    const prod = await loadKubeConfig({ kubeconfig: file, context: 'prod' });
    assert.equal(prod.getCurrentContext(), 'prod');
  });

  it('reads KUBECONFIG when no --kubeconfig is given', async () => {
    const saved = process.env['KUBECONFIG'];
    process.env['KUBECONFIG'] = file;
    try {
      assert.equal((await loadKubeConfig()).getCurrentContext(), 'dev');
    } finally {
      if (saved === undefined) delete process.env['KUBECONFIG'];
      else process.env['KUBECONFIG'] = saved;
    }
  });

  it('no kubeconfig anywhere is a usage error, not a silent localhost:8080', async () => {
    const saved = { KUBECONFIG: process.env['KUBECONFIG'], HOME: process.env['HOME'] };
    delete process.env['KUBECONFIG'];
    process.env['HOME'] = dir; // no .kube/config in it
    try {
      await assert.rejects(loadKubeConfig(), (err: unknown) => {
        assert.ok(err instanceof UsageError);
        assert.match(err.message, /no kubeconfig found \(set KUBECONFIG or pass --kubeconfig\)/);
        return true;
      });
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it('an unknown --context is a usage error listing the contexts', async () => {
    await assert.rejects(loadKubeConfig({ kubeconfig: file, context: 'nope' }), (err: unknown) => {
      assert.ok(err instanceof UsageError);
      assert.match(
        err.message,
        /^context nope: failed to select context: no such context \(have: dev, prod, prod-admin\)$/,
      );
      return true;
    });
  });

  it('a missing kubeconfig file is a usage error naming it', async () => {
    await assert.rejects(loadKubeConfig({ kubeconfig: join(dir, 'missing') }), (err: unknown) => {
      assert.ok(err instanceof UsageError);
      assert.match(err.message, /^kubeconfig .*missing: failed to load/);
      return true;
    });
  });

  it('resolves destinations by server (trailing slash ignored, current context preferred) and by name', async () => {
    const kc = await loadKubeConfig({ kubeconfig: file });
    assert.equal(resolveDestination(kc, { server: 'https://dev.example:6443' }), 'dev');
    assert.equal(resolveDestination(kc, { server: 'https://prod.example:6443/' }), 'prod');
    assert.equal(resolveDestination(kc, { name: 'prod-admin' }), 'prod-admin');
    assert.equal(
      resolveDestination(kc, { name: 'prod-cluster' }),
      'prod',
      'a cluster name picks its first context',
    );
    const onAdmin = await loadKubeConfig({ kubeconfig: file, context: 'prod-admin' });
    assert.equal(resolveDestination(onAdmin, { server: 'https://prod.example:6443' }), 'prod-admin');
  });

  it('https://kubernetes.default.svc and in-cluster mean the current context', async () => {
    const kc = await loadKubeConfig({ kubeconfig: file, context: 'prod' });
    assert.equal(resolveDestination(kc, { server: 'https://kubernetes.default.svc' }), 'prod');
    assert.equal(resolveDestination(kc, { name: 'in-cluster' }), 'prod');
  });

  it('no matching context is an error naming the destination', async () => {
    const kc = await loadKubeConfig({ kubeconfig: file });
    assert.throws(
      () => resolveDestination(kc, { server: 'https://other.example' }),
      (err: unknown) => {
        assert.ok(err instanceof GitopsError && !(err instanceof UsageError));
        assert.equal(
          err.message,
          "destination https://other.example: failed to resolve to a kubeconfig context: no context's cluster has server https://other.example (contexts: dev, prod, prod-admin)",
        );
        return true;
      },
    );
    assert.throws(
      () => resolveDestination(kc, { name: 'staging' }),
      /destination staging: .*no context or cluster is named staging/,
    );
  });

  it('src/cluster loads @kubernetes/client-node only lazily, and only its KubeConfig module', () => {
    const srcDir = join(import.meta.dirname, '..', '..', 'src', 'cluster');
    for (const f of readdirSync(srcDir)) {
      const text = readFileSync(join(srcDir, f), 'utf8');
      const valueImport = /^import (?!type )[^;]*from '@kubernetes\/client-node(\/[^']*)?'/m;
      assert.doesNotMatch(text, valueImport, `${f} imports client-node eagerly`);
    }
    assert.match(
      readFileSync(join(srcDir, 'kubeconfig.ts'), 'utf8'),
      /import\('@kubernetes\/client-node\/dist\/config\.js'\)/,
    );
  });

  it('connect binds the client to the destination context', async () => {
    const conn = await connect({ kubeconfig: file, destination: { server: 'https://prod.example:6443' } });
    assert.equal(conn.context, 'prod');
    assert.equal(conn.server, 'https://prod.example:6443');
    conn.close();
  });
});
