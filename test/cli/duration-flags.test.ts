/**
 * `--app-resync` (and `--app-resync-jitter`) of `controller` and of `sync --watch`: one flag definition
 * (commands/flags.ts `durationFlag`) taking both Argo CD's integer seconds and a duration with units, as
 * `--request-timeout` does. The parsed value is milliseconds; a malformed value is a usage error naming the
 * flag, through the built CLI.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Parser } from '@oclif/core';
import { controllerFlags } from '../../src/commands/controller-flags.js';
import Sync from '../../src/commands/sync.js';
import { runCli } from '../support/cli.js';
import { repoRoot } from '../support/paths.js';

const parse = async (flags: Record<string, unknown>, argv: string[]): Promise<Record<string, unknown>> =>
  (await Parser.parse(argv, { flags: flags as never, strict: true })).flags as Record<string, unknown>;

describe('duration flags: integer seconds or a duration', () => {
  const cases: Array<[string, number]> = [
    ['30', 30_000],
    ['30s', 30_000],
    ['3m', 180_000],
    ['1m30s', 90_000],
    ['0', 0],
  ];
  for (const [text, ms] of cases) {
    it(`controller --app-resync ${text} and sync --watch --app-resync ${text}: ${ms} ms`, async () => {
      assert.equal((await parse(controllerFlags, ['--app-resync', text]))['app-resync'], ms);
      assert.equal((await parse(controllerFlags, ['--app-resync-jitter', text]))['app-resync-jitter'], ms);
      assert.equal((await parse(Sync.flags, ['--watch', '--app-resync', text]))['app-resync'], ms);
    });
  }

  it("defaults: the controller's 120 s and 60 s of jitter (Argo CD's), none given to sync", async () => {
    const flags = await parse(controllerFlags, []);
    assert.equal(flags['app-resync'], 120_000);
    assert.equal(flags['app-resync-jitter'], 60_000);
    assert.equal((await parse(Sync.flags, ['--watch']))['app-resync'], undefined);
  });

  for (const command of [['controller'], ['sync', '--watch', '-f', join(repoRoot, 'examples', 'apps')]]) {
    it(`${command[0]}: a malformed or negative value is a usage error naming the flag`, async () => {
      for (const bad of ['30x', '-5s', 'soon']) {
        const r = await runCli([...command, '--app-resync', bad]);
        assert.equal(r.code, 2, r.stderr);
        assert.equal(
          r.stderr.split('\n')[0],
          `error: --app-resync: failed to parse duration "${bad}": give seconds (120) or a duration with units (30s, 3m, 1h30m)`,
        );
      }
    });
  }

  it('controller --app-resync 30s passes the flag parser (the next error is the missing kubeconfig)', async () => {
    const r = await runCli([
      'controller',
      '--app-resync',
      '30s',
      '--app-resync-jitter',
      '5s',
      '--kubeconfig',
      join(repoRoot, 'no-such-kubeconfig'),
    ]);
    assert.notEqual(r.code, 0);
    assert.doesNotMatch(r.stderr, /app-resync/);
    assert.match(r.stderr, /no-such-kubeconfig/);
  });
});
