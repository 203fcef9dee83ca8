/**
 * End to end: the built CLI (bin/kubectl-gitops -> dist/) as a process, and through kubectl's plugin
 * mechanism. `npm test` builds first; run `npm run build` before running this file alone.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { runCli } from '../support/cli.js';
import { repoRoot } from '../support/paths.js';

const clustersFile = join(repoRoot, 'examples', 'shards', 'clusters.yaml');
const appsFile = join(repoRoot, 'examples', 'shards', 'apps.yaml');
const tmp = mkdtempSync(join(tmpdir(), 'gitops-shards-'));
/** The example cluster Secrets and Applications, as files. */
const examples = ['--clusters-file', clustersFile, '--apps-file', appsFile];

before(() => {
  assert.ok(existsSync(join(repoRoot, 'dist', 'cli.js')), 'dist/ is missing: run `npm run build` first');
});

function assertOneLineError(
  r: { code: number | null; stderr: string; stdout: string },
  code: number,
  pattern: RegExp,
) {
  assert.equal(r.code, code, r.stderr);
  const lines = r.stderr.trimEnd().split('\n');
  assert.match(lines[0]!, /^error: /);
  assert.match(lines[0]!, pattern);
  assert.ok(lines.length <= 2, `at most an error and a hint line:\n${r.stderr}`);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  assert.equal(r.stdout, '');
}

describe('shards from files', () => {
  test('table: one row per cluster, all algorithms, summaries, default marked, words for unmanaged', async () => {
    const r = await runCli(['shards', '--replicas', '3', ...examples]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split('\n');
    const header = lines.find((l) => l.startsWith('NAME'))!;
    assert.match(
      header,
      /NAME\s+SERVER\s+APPS\s+LEGACY \(DEFAULT\)\s+ROUND-ROBIN\s+CONSISTENT-HASHING\s+NOTE/,
    );
    assert.match(r.stdout, /^in-cluster\s+https:\/\/kubernetes\.default\.svc\s+3\s/m);
    assert.match(
      r.stdout,
      /^legacy-dc .* none \(-1\) .* manual shard -1: no controller manages this cluster$/m,
    );
    assert.match(r.stdout, /^sandbox .* skip-reconcile: no controller manages this cluster$/m);
    for (const a of ['legacy (default)', 'round-robin', 'consistent-hashing']) {
      assert.match(r.stdout, new RegExp(`^${a.replace(/[()]/g, '\\$&')}: imbalance`, 'm'));
    }
    assert.match(r.stdout, /Apps: 47 from files \(1 name their destination by name/);
  });

  test('-o json: the documented shape, equal to the table figures', async () => {
    const r = await runCli(['shards', '--replicas', '3', ...examples, '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.equal(report.replicas, 3);
    assert.equal(report.defaultAlgorithm, 'legacy');
    assert.equal(report.clusters.length, 9);
    const legacyDc = report.clusters.find((c: { name: string }) => c.name === 'legacy-dc');
    assert.deepEqual(legacyDc.shards, { legacy: -1, 'round-robin': -1, 'consistent-hashing': -1 });
    assert.equal(legacyDc.manualShard, -1);
    const inCluster = report.clusters[0];
    assert.deepEqual([inCluster.name, inCluster.id, inCluster.manualShard], ['in-cluster', '', null]);
    const prodAp = report.clusters.find((c: { name: string }) => c.name === 'prod-ap');
    assert.equal(prodAp.server, 'https://prod-ap.k8s.example.com', 'trailing slash trimmed');
    assert.equal(prodAp.apps, 4);
    for (const a of ['legacy', 'round-robin', 'consistent-hashing']) {
      const s = report.summary[a];
      assert.equal(s.shards.length, 3);
      const apps = s.shards.reduce((n: number, x: { apps: number }) => n + x.apps, 0) + s.unmanaged.apps;
      assert.equal(apps, 46, `${a}: every app that targets a cluster is counted once`);
    }
  });

  test('-o yaml and --algorithm show one algorithm', async () => {
    const r = await runCli([
      'shards',
      '--replicas',
      '2',
      '--clusters-file',
      clustersFile,
      '--algorithm',
      'round-robin',
      '-o',
      'yaml',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^replicas: 2$/m);
    assert.match(r.stdout, /round-robin: \d/);
    assert.doesNotMatch(r.stdout, /consistent-hashing: \d/);
  });

  test('--from-replicas lists moves per algorithm', async () => {
    const r = await runCli(['shards', '--replicas', '3', '--from-replicas', '2', ...examples, '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.equal(report.fromReplicas, 2);
    for (const a of ['legacy', 'round-robin', 'consistent-hashing']) {
      const m = report.moves[a];
      assert.equal(m.clusters, m.moved.length);
      for (const x of m.moved) assert.notEqual(x.from, x.to);
    }
    const table = await runCli(['shards', '--replicas', '3', '--from-replicas', '2', ...examples]);
    assert.match(table.stdout, /Scaling from 2 to 3 replicas:/);
  });

  test('clusters from stdin; without uid needs --id-from, shown in the header', async () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const input = `apiVersion: v1\nkind: Secret\nmetadata: {name: a}\ndata: {server: ${b64('https://a.example')}, name: ${b64('a')}}\n`;
    const fail = await runCli(['shards', '--replicas', '2', '--clusters-file', '-'], { input });
    assertOneLineError(fail, 2, /<stdin> \(document 1\): Secret a: has no metadata\.uid/);
    const ok = await runCli(['shards', '--replicas', '2', '--clusters-file', '-', '--id-from', 'server'], {
      input,
    });
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /1 cluster without a UID use their server \(--id-from server\)/);
  });

  test('--no-in-cluster leaves the in-cluster entry out', async () => {
    const r = await runCli([
      'shards',
      '--replicas',
      '2',
      '--clusters-file',
      clustersFile,
      '--no-in-cluster',
      '-o',
      'json',
    ]);
    assert.equal(JSON.parse(r.stdout).clusters.length, 8);
  });
});

describe('shards bad input', () => {
  for (const [args, pattern] of [
    [[], /^error: --replicas: missing required flag$/],
    [['--replicas', '0'], /--replicas: expected an integer greater than or equal to 1/],
    [['--replicas', '-2'], /--replicas/],
    [['--replicas', '1.5'], /--replicas: expected an integer/],
    [['--replicas', 'three'], /--replicas: expected an integer/],
  ] as const) {
    test(`usage error: ${args.join(' ') || 'no --replicas'}`, async () => {
      const r = await runCli(['shards', ...args, '--clusters-file', clustersFile]);
      assertOneLineError(r, 2, pattern);
      assert.match(r.stderr, /^hint: see 'kubectl gitops shards --help'$/m);
    });
  }

  test('malformed YAML names file and document', async () => {
    const file = join(tmp, 'bad.yaml');
    writeFileSync(file, 'apiVersion: v1\nkind: Secret\n---\nmetadata: {name: [\n');
    assertOneLineError(
      await runCli(['shards', '--replicas', '2', '--clusters-file', file]),
      2,
      /bad\.yaml \(document 2\): failed to parse YAML/,
    );
  });

  test('a Secret without server is counted with a warning naming file and document; a missing file names the file', async () => {
    const file = join(tmp, 'noserver.yaml');
    writeFileSync(file, 'apiVersion: v1\nkind: Secret\nmetadata: {name: x, uid: u}\nstringData: {name: x}\n');
    const r = await runCli(['shards', '--replicas', '2', '--clusters-file', file, '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^warning: .*noserver\.yaml \(document 1\): Secret x: has no server/m);
    const rows = JSON.parse(r.stdout).clusters as { name: string; server: string }[];
    assert.deepEqual(
      rows.map((c) => [c.name, c.server]),
      [
        ['in-cluster', 'https://kubernetes.default.svc'],
        ['x', ''],
      ],
    );
    const table = await runCli(['shards', '--replicas', '2', '--clusters-file', file]);
    assert.match(table.stdout, /no server: counted, but no app can reach it/);
    assertOneLineError(
      await runCli(['shards', '--replicas', '2', '--clusters-file', join(tmp, 'nope.yaml')]),
      2,
      /nope\.yaml: failed to read: no such file/,
    );
  });

  test('duplicate servers warn on stderr and keep stdout clean', async () => {
    const file = join(tmp, 'dups.yaml');
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const s = (n: string) =>
      `apiVersion: v1\nkind: Secret\nmetadata: {name: ${n}, uid: uid-${n}}\ndata: {server: ${b64('https://same')}}\n`;
    writeFileSync(file, `${s('a')}---\n${s('b')}`);
    const r = await runCli(['shards', '--replicas', '2', '--clusters-file', file, '-o', 'json']);
    assert.equal(r.code, 0);
    assert.match(r.stderr, /^warning: .*duplicate server https:\/\/same/m);
    assert.equal(JSON.parse(r.stdout).clusters.length, 2);
  });

  test('--debug adds the stack trace', async () => {
    const r = await runCli([
      'shards',
      '--replicas',
      '2',
      '--clusters-file',
      join(tmp, 'nope.yaml'),
      '--debug',
    ]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /\n\s+at /);
  });

  test('live mode with an unreachable API server: one line naming the context, exit 2 (an error, never 1)', async () => {
    const kubeconfig = join(tmp, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        // client-node accepts plain http only with insecure-skip-tls-verify (see live-reader.ts).
        'clusters: [{name: dead, cluster: {server: "http://127.0.0.1:9", insecure-skip-tls-verify: true}}]',
        'users: [{name: me, user: {}}]',
        'contexts: [{name: dead-ctx, context: {cluster: dead, user: me}}]',
        'current-context: dead-ctx',
      ].join('\n'),
    );
    const r = await runCli(['shards', '--replicas', '2', '--kubeconfig', kubeconfig]);
    assertOneLineError(
      r,
      2,
      /^error: context dead-ctx: failed to list cluster Secrets in namespace argocd: .*ECONNREFUSED/,
    );
    const noCtx = await runCli([
      'shards',
      '--replicas',
      '2',
      '--kubeconfig',
      kubeconfig,
      '--context',
      'other',
    ]);
    assertOneLineError(
      noCtx,
      2,
      /^error: context other: failed to select context: no such context \(have: dead-ctx\)$/,
    );
  });
});

describe('as a kubectl plugin', () => {
  const env = {
    PATH: [join(repoRoot, 'bin'), dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(
      delimiter,
    ),
  };
  const kubectl = spawnSync('kubectl', ['version', '--client'], { env }).status === 0;

  test(
    'kubectl plugin list finds kubectl-gitops',
    { skip: kubectl ? false : 'kubectl not installed' },
    () => {
      const r = spawnSync('kubectl', ['plugin', 'list'], { env, encoding: 'utf8' });
      assert.match(r.stdout, /bin\/kubectl-gitops$/m, r.stderr);
    },
  );

  test(
    'kubectl gitops --help and kubectl gitops shards run',
    { skip: kubectl ? false : 'kubectl not installed' },
    async () => {
      const help = spawnSync('kubectl', ['gitops', '--help'], { env, encoding: 'utf8' });
      assert.equal(help.status, 0, help.stderr);
      assert.match(help.stdout, /\$ kubectl gitops \[COMMAND\]/);
      assert.match(help.stdout, /shards\s+Show which application-controller shard/);
      const r = spawnSync(
        'kubectl',
        ['gitops', 'shards', '--replicas', '2', '--clusters-file', clustersFile, '-o', 'json'],
        {
          env,
          encoding: 'utf8',
        },
      );
      assert.equal(r.status, 0, r.stderr);
      const viaKubectl = JSON.parse(r.stdout);
      const direct = JSON.parse(
        (await runCli(['shards', '--replicas', '2', '--clusters-file', clustersFile, '-o', 'json'])).stdout,
      );
      assert.deepEqual(viaKubectl, direct);
      const bad = spawnSync('kubectl', ['gitops', 'shards'], { env, encoding: 'utf8' });
      assert.equal(bad.status, 2, 'kubectl passes the exit code through');
    },
  );

  test('--version', async () => {
    const r = await runCli(['--version']);
    const pkg = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8'));
    assert.match(r.stdout, new RegExp(`^kubectl-gitops/${pkg.version.replace(/\./g, '\\.')} `));
  });
});
