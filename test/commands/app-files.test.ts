/**
 * Issue 14, app files: `-f -` reads standard input (piped into a real child process) wherever a file is
 * taken; documents of other kinds (AppProjects excepted: they are read) are skipped with one warning line per file; a file without an Application
 * is an error naming it; `targetRevision: 1.10` (unquoted) is the Git tag "1.10", not 1.1.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { runCli } from '../support/cli.js';
import { useEmbeddedCluster } from '../support/embedded.js';
import { appYaml, cm, TestRepo, tempDir } from '../support/git.js';

const firstLine = (text: string): string => text.split('\n')[0]!;

describe('app files: standard input, skipped kinds, scalars as written', () => {
  const fx = useEmbeddedCluster();
  const dir = tempDir();
  const env = { XDG_CACHE_HOME: join(dir, 'cache') };
  const repo = new TestRepo();
  repo.commit({ 'web/cm.yaml': cm('at-1.10') });
  repo.tag('1.10');
  repo.commit({ 'web/cm.yaml': cm('at-1.1') });
  repo.tag('1.1');
  repo.commit({ 'web/cm.yaml': cm('at-head') });
  after(() => repo.remove());
  // Unquoted: YAML 1.2 reads 1.10 as the number 1.1; Argo CD's field is a string.
  const app = appYaml('web', repo.url, 'web', { revision: '1.10' });
  const withOthers = `apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata: {name: p}
---
${app}---
${cm('a')}---
${cm('b')}`;

  it('render -f -: the app from stdin, at tag "1.10"; other kinds skipped with one warning line (AppProjects are read, not skipped)', async () => {
    const r = await runCli(['render', '-f', '-', '-o', 'yaml'], { input: withOthers, env });
    assert.equal(r.code, 0, r.stderr);
    const names = parseAllDocuments(r.stdout).map(
      (d) => (d.toJS() as { metadata: { name: string } }).metadata.name,
    );
    assert.deepEqual(names, ['at-1.10']);
    assert.equal(r.stderr, 'warning: <stdin>: skipped 2 documents that are not Applications: ConfigMap x2\n');
  });

  it('diff -f -: the app from stdin compared with the cluster (exit 1: differences)', async () => {
    const r = await runCli(['diff', '-f', '-', '--kubeconfig', fx.kubeconfig], { input: app, env });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /at-1\.10/);
    assert.doesNotMatch(r.stdout, /at-1\.1\b|at-head/);
  });

  it('sync -f - --dry-run: the app from stdin', async () => {
    const r = await runCli(['sync', '-f', '-', '--kubeconfig', fx.kubeconfig, '--dry-run', '-o', 'json'], {
      input: app,
      env,
    });
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as { apps: { name: string }[] };
    assert.deepEqual(
      doc.apps.map((a) => a.name),
      ['web'],
    );
    assert.match(r.stdout, /at-1\.10/);
  });

  it('shards --apps-file -: Applications counted from stdin', async () => {
    const clusters = join(dir, 'clusters.yaml');
    writeFileSync(
      clusters,
      'apiVersion: v1\nkind: Secret\nmetadata: {name: c1, uid: 11111111-1111-1111-1111-111111111111}\nstringData: {name: c1, server: "https://c1.example.com"}\n',
    );
    const r = await runCli(
      ['shards', '--replicas', '2', '--clusters-file', clusters, '--apps-file', '-', '-o', 'json'],
      {
        input: app,
      },
    );
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as { applications: { total: number } };
    assert.equal(doc.applications.total, 1);
  });

  for (const [what, input, line] of [
    [
      'empty input',
      '',
      'error: <stdin>: failed to read Applications: no Application in <stdin> (no documents)',
    ],
    [
      'only other kinds',
      `${cm('a')}---\n${cm('b')}`,
      'error: <stdin>: failed to read Applications: no Application in <stdin> (ConfigMap x2)',
    ],
  ] as const) {
    for (const command of ['render', 'diff', 'sync']) {
      it(`${command} -f - with ${what}: "no Application in <stdin>" (exit 2)`, async () => {
        const r = await runCli([command, '-f', '-', '--kubeconfig', fx.kubeconfig], { input, env });
        assert.equal(r.code, 2, r.stderr);
        const lines = r.stderr.split('\n').filter((l) => l.startsWith('error:'));
        assert.equal(lines[0], line);
      });
    }
  }

  it('an empty app file names the file', async () => {
    const file = join(dir, 'empty.yaml');
    writeFileSync(file, '');
    const r = await runCli(['render', '-f', file], { env });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(
      firstLine(r.stderr),
      `error: ${file}: failed to read Applications: no Application in ${file} (no documents)`,
    );
  });
});
