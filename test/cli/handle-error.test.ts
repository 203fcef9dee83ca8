/**
 * The error lines users see: oclif's own parser errors rewritten as `error: <subject>: <reason>`, "did you
 * mean" for unknown commands and flags, and hints that fit the error (RBAC, missing path).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { Errors } from '@oclif/core';
import { ExitCode, GitopsError, UsageError, oneLine } from '../../src/common/index.js';
import { editDistance, formatError, suggestions } from '../../src/cli/handle-error.js';
import { ApiError } from '../../src/cluster/errors.js';

const vocabulary = {
  commands: ['diff', 'render', 'shards', 'embedded-cluster', 'version', 'help'],
  flags: ['app-file', 'server-side-diff', 'server-side', 'selector', 'output'],
};

function oclifError(message: string): Error {
  return new Errors.CLIError(message, { exit: 2 });
}

describe('formatError', () => {
  it('suggests close commands as cobra does (distance <= 2 or a prefix), closest first', () => {
    assert.equal(editDistance('dif', 'diff'), 1);
    assert.deepEqual(suggestions('dif', vocabulary.commands), ['diff']);
    assert.deepEqual(suggestions('rendr', vocabulary.commands), ['render']);
    assert.deepEqual(suggestions('embedded', vocabulary.commands), ['embedded-cluster']);
    assert.deepEqual(suggestions('apply', vocabulary.commands), []);
  });

  it('unknown command: the command as subject, did you mean', () => {
    const lines = formatError(oclifError('command rendr not found'), ['rendr'], 'rendr', vocabulary);
    assert.deepEqual(lines, [
      'error: rendr: unknown command',
      "hint: did you mean 'kubectl gitops render'? (see 'kubectl gitops --help')",
    ]);
    const none = formatError(oclifError('command apply not found'), ['apply'], 'apply', vocabulary);
    assert.deepEqual(none, ['error: apply: unknown command', "hint: see 'kubectl gitops --help'"]);
  });

  it("oclif's parser errors become <subject>: <reason> with the command's help as hint", () => {
    const cases: Array<[string, string]> = [
      ['Nonexistent flag: --server-sid', '--server-sid: unknown flag'],
      ['Nonexistent flags: --a, --b', '--a, --b: unknown flags'],
      [
        'Parsing --replicas \n\tExpected an integer but received: abc\nSee more help with --help',
        '--replicas: expected an integer but received: abc',
      ],
      ['Flag --replicas expects a value', '--replicas: missing value'],
      ['Missing required flag replicas', '--replicas: missing required flag'],
      ['Expected --output=foo to be one of: yaml, json', '--output foo: not one of: yaml, json'],
      ['All of the following must be provided when using --head: --base', '--head: needs --base too'],
      ['--local=y cannot also be provided when using --head', '--local: cannot be used with --head'],
      ['Unexpected argument: extra', 'extra: unexpected argument'],
    ];
    for (const [oclif, line] of cases) {
      const lines = formatError(oclifError(oclif), ['diff'], 'diff', vocabulary);
      assert.equal(lines[0], `error: ${line}`, oclif);
      assert.equal(lines.length, 2, oclif);
      assert.match(lines[1]!, /^hint: .*see 'kubectl gitops diff --help'/, oclif);
    }
    const typo = formatError(oclifError('Nonexistent flag: --server-sid'), ['diff'], 'diff', vocabulary);
    assert.equal(
      typo[1],
      "hint: did you mean '--server-side' or '--server-side-diff'? (see 'kubectl gitops diff --help')",
    );
  });

  it('RBAC: names the verb and resource denied and the kubectl auth can-i check', () => {
    const status = {
      kind: 'Status',
      status: 'Failure',
      reason: 'Forbidden',
      code: 403,
      message:
        'configmaps is forbidden: User "ci" cannot list resource "configmaps" in API group "" in the namespace "web"',
    };
    const err = new ApiError('cluster in-cluster', 'list', 403, status);
    const lines = formatError(err, ['diff'], 'diff', vocabulary);
    assert.equal(lines[0], `error: cluster in-cluster: failed to list: ${status.message}`);
    assert.equal(
      lines[1],
      "hint: RBAC denies 'list' on configmaps in namespace web; check with 'kubectl auth can-i list configmaps -n web'",
    );
    const clusterWide = new ApiError('cluster x', 'watch', 403, {
      ...status,
      message:
        'x is forbidden: User "ci" cannot watch resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope',
    });
    assert.equal(
      formatError(clusterWide, [], 'diff', vocabulary)[1],
      "hint: RBAC denies 'watch' on clusterroles.rbac.authorization.k8s.io (cluster-wide); check with 'kubectl auth can-i watch clusterroles.rbac.authorization.k8s.io'",
    );
  });

  it('missing file: the absolute path looked up and where relative paths start', () => {
    const err = new UsageError('failed to read Applications: no such file or directory', {
      subject: 'apps/x.yaml',
    });
    assert.deepEqual(formatError(err, [], 'diff', vocabulary), [
      'error: apps/x.yaml: failed to read Applications: no such file or directory',
      `hint: ${resolve('apps/x.yaml')} does not exist (relative paths start at ${process.cwd()})`,
    ]);
    const local = new UsageError('failed to read: no such directory', { subject: '--local /nowhere' });
    assert.equal(
      formatError(local, [], 'diff', vocabulary)[1],
      'hint: nothing exists at /nowhere: check the path',
    );
  });

  it('a runtime failure with exit code 2 gets no --help hint; a usage error does', () => {
    const runtime = new GitopsError('no answer from https://10.0.0.1 (context prod) within 30s', {
      subject: 'diff',
      exitCode: ExitCode.FAILURE,
    });
    assert.deepEqual(formatError(runtime, ['diff'], 'diff'), [`error: ${oneLine(runtime)}`]);
    const usage = new UsageError('failed to parse duration "soon"', { subject: '--timeout' });
    assert.deepEqual(formatError(usage, ['sync'], 'sync'), [
      'error: --timeout: failed to parse duration "soon"',
      "hint: see 'kubectl gitops sync --help'",
    ]);
  });

  it('an explicit hint wins; stack traces only with --debug', () => {
    const err = new UsageError('failed to parse: bad', { subject: 'x.yaml', hint: 'fix it' });
    assert.deepEqual(formatError(err, [], 'diff', vocabulary), [
      'error: x.yaml: failed to parse: bad',
      'hint: fix it',
    ]);
    assert.equal(formatError(err, ['--debug'], 'diff', vocabulary).length, 3);
  });
});
