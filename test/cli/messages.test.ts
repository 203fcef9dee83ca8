/**
 * Messages of issue 14 through the built CLI: exit code and the first error line for a kubeconfig that is
 * binary or not YAML, a missing exec credential plugin, an existing `embedded-cluster --kubeconfig-out`
 * file, and when colours are printed (NO_COLOR, FORCE_COLOR, --no-color).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { runCli } from '../support/cli.js';
import { useEmbeddedCluster } from '../support/embedded.js';
import { launcher, repoRoot } from '../support/paths.js';

const firstLine = (text: string): string => text.split('\n')[0] ?? '';
const ESC = '\u001b[';

describe('error messages and colours (CLI)', () => {
  const fx = useEmbeddedCluster();
  const diffArgs = (kubeconfig: string): string[] => [
    'diff',
    '-f',
    join(repoRoot, 'examples', 'apps'),
    'guestbook',
    '--local',
    join(repoRoot, 'examples', 'repo'),
    '--kubeconfig',
    kubeconfig,
  ];

  it('a binary kubeconfig is one line naming the file, with none of its bytes', async () => {
    const file = join(fx.dir, 'binary.kubeconfig');
    const bytes = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xff, 0xfe, 0x00, 0x41, 0x0a, 0xc3, 0x28, 0x07]);
    writeFileSync(file, bytes);
    for (const args of [diffArgs(file), ['shards', '--replicas', '2', '--kubeconfig', file]]) {
      const r = await runCli(args);
      assert.equal(r.code, 2, r.stderr);
      assert.equal(
        firstLine(r.stderr),
        `error: kubeconfig ${file}: failed to load: not a text file (binary, or not UTF-8)`,
      );
      // eslint-disable-next-line no-control-regex
      assert.doesNotMatch(r.stderr, /[\u0000-\u0008\u000b-\u001f\ufffd]/, 'no raw bytes on the terminal');
    }
  });

  it('a kubeconfig that is not YAML says where, without quoting the file', async () => {
    const file = join(fx.dir, 'broken.kubeconfig');
    writeFileSync(file, 'apiVersion: v1\nclusters: [\n  secret-token-abc\n');
    const r = await runCli(['shards', '--replicas', '2', '--kubeconfig', file]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      firstLine(r.stderr),
      new RegExp(
        `^error: kubeconfig ${file}: failed to load: invalid YAML: .* \\(line \\d+, column \\d+\\)$`,
      ),
    );
    assert.ok(!r.stderr.includes('secret-token-abc'), r.stderr);
  });

  it('a missing exec credential plugin names the plugin, context and user, not a resource kind', async () => {
    const kubeconfig = readFileSync(fx.kubeconfig, 'utf8');
    const file = join(fx.dir, 'exec.kubeconfig');
    // The user's credentials (none on the embedded server, a client certificate on a real one) become an exec plugin.
    const doc = parse(kubeconfig) as { users: Array<{ user: unknown }> };
    doc.users[0]!.user = {
      exec: {
        apiVersion: 'client.authentication.k8s.io/v1',
        command: 'kubectl-gitops-test-no-such-plugin',
        interactiveMode: 'Never',
        installHint: 'get it from the test suite',
      },
    };
    writeFileSync(file, stringify(doc));
    const expected =
      'context embedded (user embedded): failed to get credentials: exec plugin "kubectl-gitops-test-no-such-plugin" not found (a client-go credential plugin that is not installed or not on PATH)';
    const shards = await runCli(['shards', '--replicas', '2', '--kubeconfig', file]);
    assert.equal(shards.code, 2, shards.stderr);
    assert.deepEqual(shards.stderr.split('\n').slice(0, 2), [
      `error: ${expected}`,
      'hint: get it from the test suite',
    ]);
    const diff = await runCli(diffArgs(file));
    assert.equal(diff.code, 2, diff.stderr);
    assert.equal(firstLine(diff.stderr), `error: app "guestbook": ${expected}`);
  });

  it('embedded-cluster refuses to overwrite an existing --kubeconfig-out file unless --force', async () => {
    const file = join(fx.dir, 'existing.kubeconfig');
    writeFileSync(file, 'precious: true\n');
    const r = await runCli(['embedded-cluster', '--kubeconfig-out', file]);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(
      firstLine(r.stderr),
      `error: ${file}: failed to write kubeconfig: the file exists (pass --force to replace it)`,
    );
    assert.equal(readFileSync(file, 'utf8'), 'precious: true\n', 'the file is untouched');

    // --force replaces it: the server starts and its kubeconfig is written; SIGTERM stops it with 0.
    const child = spawn(launcher, ['embedded-cluster', '--kubeconfig-out', file, '--force'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out.includes('Ctrl-C to stop')) child.kill('SIGTERM');
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0, out);
    assert.match(readFileSync(file, 'utf8'), /^kind: Config$/m);
  });

  describe('colours', () => {
    const cases: Array<[string, NodeJS.ProcessEnv, string[], boolean]> = [
      ['a pipe: none', {}, [], false],
      ['FORCE_COLOR=1 on a pipe: colours', { FORCE_COLOR: '1' }, [], true],
      ['FORCE_COLOR empty (chalk: level 1): colours', { FORCE_COLOR: '' }, [], true],
      ['FORCE_COLOR=true: colours', { FORCE_COLOR: 'true' }, [], true],
      ['FORCE_COLOR=0: none', { FORCE_COLOR: '0' }, [], false],
      ['FORCE_COLOR=false: none', { FORCE_COLOR: 'false' }, [], false],
      ['NO_COLOR=1 wins over FORCE_COLOR=1', { FORCE_COLOR: '1', NO_COLOR: '1' }, [], false],
      ['NO_COLOR=0 is set and non-empty: none', { FORCE_COLOR: '1', NO_COLOR: '0' }, [], false],
      ['NO_COLOR empty is as if unset', { FORCE_COLOR: '1', NO_COLOR: '' }, [], true],
      ['--no-color wins over FORCE_COLOR', { FORCE_COLOR: '1' }, ['--no-color'], false],
    ];
    for (const [name, env, extra, coloured] of cases) {
      it(name, async () => {
        const r = await runCli([...diffArgs(fx.kubeconfig), ...extra], {
          env: { NO_COLOR: undefined, FORCE_COLOR: undefined, ...env },
        });
        assert.equal(r.code, 1, r.stderr);
        assert.equal(r.stdout.includes(ESC), coloured, r.stdout.slice(0, 300));
      });
    }
  });
});
