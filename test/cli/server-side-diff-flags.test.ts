/**
 * `--server-side-diff-concurrency` and `--server-side-diff-max-batch-kb` of `diff` and `sync` through the
 * built CLI: 0 concurrency is refused as Argo CD refuses it, before any file or cluster is read.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { repoRoot } from '../support/paths.js';

describe('server-side diff batching flags (CLI)', () => {
  for (const command of ['diff', 'sync']) {
    it(`${command}: --server-side-diff-concurrency 0 is a usage error naming the flag`, async () => {
      const r = await runCli([
        command,
        '-f',
        join(repoRoot, 'examples', 'apps'),
        '--kubeconfig',
        join(repoRoot, 'no-such-kubeconfig'),
        '--server-side-diff-concurrency',
        '0',
      ]);
      assert.equal(r.code, 2, r.stderr);
      assert.equal(
        r.stderr.split('\n')[0],
        'error: --server-side-diff-concurrency: failed to parse: 0 is not allowed (use -1 for all batches at once, or a positive number to limit them)',
      );
    });
  }

  it('values below -1 and a batch budget below 1 KB are refused by the flag parser', async () => {
    for (const args of [
      ['--server-side-diff-concurrency', '-2'],
      ['--server-side-diff-max-batch-kb', '0'],
    ]) {
      const r = await runCli(['diff', '-f', join(repoRoot, 'examples', 'apps'), ...args]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, new RegExp(args[0]!));
    }
  });
});
