/**
 * Issue 14, "silent wrong successes": a cluster or namespace without Argo CD, and cluster Secret input with
 * no document at all, are errors (exit 2) naming what was not found, never an empty success. The built
 * CLI against the embedded API server (no Application CRD installed).
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { api, useEmbeddedCluster } from '../support/embedded.js';
import { runCli } from '../support/cli.js';

const firstLine = (text: string): string => text.split('\n')[0]!;

describe('no Argo CD where one is expected', () => {
  const fx = useEmbeddedCluster();

  before(async () => {
    const r = await api(fx.cluster, 'POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'empty' },
    });
    assert.equal(r.status, 201);
  });

  for (const command of ['diff', 'render', 'sync']) {
    it(`${command} --from-cluster without the Application CRD: exit 2 naming the CRD and context`, async () => {
      const r = await runCli([command, '--from-cluster', '--kubeconfig', fx.kubeconfig]);
      assert.equal(r.code, 2, r.stderr);
      assert.equal(
        firstLine(r.stderr),
        'error: namespace argocd: failed to list Applications: the Application CRD (applications.argoproj.io) is not installed in context embedded: no Argo CD there',
      );
      assert.equal(r.stdout, '');
    });
  }

  it('live shards against a namespace that does not exist: exit 2 naming it', async () => {
    const r = await runCli([
      'shards',
      '--replicas',
      '2',
      '--kubeconfig',
      fx.kubeconfig,
      '--argocd-namespace',
      'nowhere',
    ]);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(
      firstLine(r.stderr),
      "error: context embedded: failed to read Argo CD: namespace nowhere not found (Argo CD's namespace is --argocd-namespace)",
    );
    assert.equal(r.stdout, '');
  });

  it('live shards against a namespace without Argo CD: exit 2 naming what was looked for', async () => {
    const r = await runCli([
      'shards',
      '--replicas',
      '2',
      '--kubeconfig',
      fx.kubeconfig,
      '--argocd-namespace',
      'empty',
    ]);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(
      firstLine(r.stderr),
      'error: context embedded: failed to read Argo CD: namespace empty has no argocd-cm or argocd-cmd-params-cm ConfigMap, no argocd-application-controller StatefulSet or Deployment, no cluster Secret and no Application (is Argo CD installed there? see --argocd-namespace)',
    );
    assert.equal(r.stdout, '');
  });
});

describe('shards --clusters-file without a cluster Secret', () => {
  it('empty standard input: exit 2, no table', async () => {
    const r = await runCli(['shards', '--replicas', '2', '--clusters-file', '-'], { input: '' });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(
      firstLine(r.stderr),
      'error: --clusters-file <stdin>: failed to read cluster Secrets: no documents',
    );
    assert.equal(r.stdout, '');
  });

  it('whitespace, comments and bare separators only: still no document, exit 2', async () => {
    const input = '# exported nothing\n---\n\n---\n';
    const r = await runCli(['shards', '--replicas', '2', '--clusters-file', '-'], { input });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(
      firstLine(r.stderr),
      'error: --clusters-file <stdin>: failed to read cluster Secrets: no documents',
    );
  });
});

/**
 * Issue 21 item 4: an empty List (what `kubectl get secrets -l argocd.argoproj.io/secret-type=cluster -o json`
 * prints on an Argo CD that knows only the in-cluster cluster) is valid input, and so is a file of other
 * documents: the cluster list is the in-cluster entry alone (empty ID, legacy shard 0), as in Argo CD.
 */
describe('shards --clusters-file with no cluster Secret in a document', () => {
  const inClusterAlone = (stdout: string): void => {
    const report = JSON.parse(stdout) as {
      clusters: { name: string; server: string; id: string; shards: Record<string, number> }[];
    };
    assert.deepEqual(
      report.clusters.map((c) => [c.name, c.server, c.id, c.shards['legacy'], c.shards['round-robin']]),
      [['in-cluster', 'https://kubernetes.default.svc', '', 0, 0]],
    );
  };

  for (const [what, input] of [
    [
      'an empty List (kubectl get -o json)',
      '{"apiVersion": "v1", "items": [], "kind": "List", "metadata": {"resourceVersion": ""}}',
    ],
    [
      'an empty List (kubectl get -o yaml)',
      'apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: ""\n',
    ],
    [
      'an empty SecretList (the API list)',
      '{"apiVersion": "v1", "kind": "SecretList", "items": [], "metadata": {"resourceVersion": "12"}}',
    ],
  ] as const) {
    it(`${what}: the in-cluster cluster alone, exit 0`, async () => {
      const r = await runCli(['shards', '--replicas', '2', '--clusters-file', '-', '-o', 'json'], { input });
      assert.equal(r.code, 0, r.stderr);
      inClusterAlone(r.stdout);
    });
  }

  it('documents but no cluster Secret: the in-cluster cluster alone, each skipped object warned about', async () => {
    const input = [
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}',
      'apiVersion: v1\nkind: Secret\nmetadata:\n  name: repo\n  labels: {argocd.argoproj.io/secret-type: repository}\nstringData: {url: "https://git.example.com/r.git"}',
    ].join('\n---\n');
    const r = await runCli(['shards', '--replicas', '2', '--clusters-file', '-', '-o', 'json'], { input });
    assert.equal(r.code, 0, r.stderr);
    inClusterAlone(r.stdout);
    assert.match(r.stderr, /skipped ConfigMap x: not a Secret/);
    assert.match(r.stderr, /skipped Secret repo: argocd\.argoproj\.io\/secret-type is "repository"/);
  });
});
