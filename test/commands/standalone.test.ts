/**
 * The standalone executable and its krew archive (`npm run package`): built into a temp dir, unpacked as
 * krew would, and run with an empty environment (no PATH, so no Node.js to lean on).
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { repoRoot } from '../support/paths.js';
import { useEmbeddedCluster } from '../support/embedded.js';
import { runCli } from '../support/cli.js';

const supported = process.platform === 'linux' && process.arch === 'x64';
const out = mkdtempSync(join(tmpdir(), 'gitops-package-'));
const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
const archiveName = `kubectl-gitops_v${pkg.version}_linux_amd64.tar.gz`;
const unpacked = join(out, 'unpacked');

const manifestTemplate = join(repoRoot, 'plugins', 'gitops.yaml');

describe('standalone executable', { skip: supported ? false : 'packaging builds linux-x64 only' }, () => {
  const fx = useEmbeddedCluster();
  let templateBefore: Buffer;
  before(() => {
    templateBefore = readFileSync(manifestTemplate);
    // This host's platform only, injected into this very Node (no download: the five platforms of
    // `npm run package` fetch Node's binaries from the registry, and check themselves as they build).
    const r = spawnSync(
      process.execPath,
      [join(repoRoot, 'scripts', 'package.mjs'), '--out', out, '--platforms', 'linux-x64', '--host-node'],
      { encoding: 'utf8' },
    );
    assert.equal(r.status, 0, r.stderr);
    mkdirSync(unpacked);
    const t = spawnSync('tar', ['-xzf', join(out, archiveName), '-C', unpacked], { encoding: 'utf8' });
    assert.equal(t.status, 0, t.stderr);
  });

  const run = (args: string[]) =>
    spawnSync(join(unpacked, 'kubectl-gitops'), args, { cwd: unpacked, env: {}, encoding: 'utf8' });

  test('the archive holds exactly the files the krew manifest names', () => {
    assert.deepEqual(readdirSync(unpacked).sort(), ['LICENSE', 'kubectl-gitops']);
    const manifest = parse(readFileSync(join(out, 'gitops.yaml'), 'utf8'));
    assert.equal(manifest.kind, 'Plugin');
    assert.equal(manifest.apiVersion, 'krew.googlecontainertools.github.com/v1alpha2');
    assert.equal(manifest.metadata.name, 'gitops');
    assert.equal(manifest.spec.version, `v${pkg.version}`);
    assert.equal(manifest.spec.platforms.length, 1, 'one entry per archive built');
    const [platform] = manifest.spec.platforms;
    assert.deepEqual(platform.selector.matchLabels, { os: 'linux', arch: 'amd64' });
    assert.equal(platform.bin, 'kubectl-gitops');
    assert.deepEqual(platform.files.map((f: { from: string }) => f.from).sort(), [
      'LICENSE',
      'kubectl-gitops',
    ]);
    assert.ok(platform.uri.endsWith(`/${archiveName}`));
    const sha = createHash('sha256')
      .update(readFileSync(join(out, archiveName)))
      .digest('hex');
    assert.equal(platform.sha256, sha);
    // The build checked what it wrote and ran it (scripts/package.mjs runChecks).
    const report = JSON.parse(readFileSync(join(out, 'package-report.json'), 'utf8')) as {
      platforms: Array<{ platform: string; codeCache: boolean; checks: string[] }>;
    };
    assert.equal(report.platforms[0]!.platform, 'linux-x64');
    assert.equal(report.platforms[0]!.codeCache, true, 'the host Node gets the V8 code cache');
    assert.match(
      report.platforms[0]!.checks.join('\n'),
      /ELF x64 executable.*NODE_SEA_BLOB \d+ bytes; fuse flipped/,
    );
    assert.match(report.platforms[0]!.checks.join('\n'), /^ran: version -o json -> .*"standalone":true/m);
  });

  test('leaves the tracked krew manifest alone (the filled one is in the output folder)', () => {
    assert.deepEqual(readFileSync(manifestTemplate), templateBefore);
  });

  test('the version command knows it is the standalone executable', () => {
    const r = run(['version', '-o', 'json']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal((JSON.parse(r.stdout) as { standalone: boolean }).standalone, true);
  });

  test('a cluster command prints no single-executable require() warning', async () => {
    // diff loads @kubernetes/client-node, ws and node-fetch, whose optional-package probes used to reach
    // the SEA's require() and print Node's warning on every run.
    // Not spawnSync: the embedded server runs in this process and must answer meanwhile.
    const r = await runCli(
      [
        'diff',
        '-f',
        join(repoRoot, 'examples', 'apps'),
        'guestbook',
        '--local',
        join(repoRoot, 'examples', 'repo'),
        '--kubeconfig',
        fx.kubeconfig,
      ],
      { command: join(unpacked, 'kubectl-gitops'), cwd: unpacked, env: { PATH: '' } },
    );
    assert.equal(r.code, 1, r.stderr); // differences: nothing of guestbook is on the empty cluster
    assert.match(r.stdout, /^===== app guestbook =====$/m);
    assert.equal(r.stderr, '');
  });

  test('runs --version with no Node.js on PATH', () => {
    const r = run(['--version']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^kubectl-gitops/${pkg.version.replace(/\./g, '\\.')} linux-x64`));
    assert.equal(r.stderr, '', 'no warnings from the single-executable runtime');
  });

  test('runs shards and agrees with the bundled CLI', () => {
    const args = [
      'shards',
      '--replicas',
      '3',
      '--clusters-file',
      join(repoRoot, 'examples', 'shards', 'clusters.yaml'),
      '-o',
      'json',
    ];
    const r = run(args);
    assert.equal(r.status, 0, r.stderr);
    const bundled = spawnSync(join(repoRoot, 'bin', 'kubectl-gitops'), args, { encoding: 'utf8' });
    assert.deepEqual(JSON.parse(r.stdout), JSON.parse(bundled.stdout));
    const bad = run(['shards']);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /^error: --replicas: missing required flag$/m);
  });
});
