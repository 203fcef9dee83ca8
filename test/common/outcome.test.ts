/**
 * How a run ends (src/common/outcome.ts): the exit-code rules every command shares, in their order, and
 * the failure the launcher renders, carrying every error of the run.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  concludeRun,
  ExitCode,
  exitCodeOfRun,
  GitopsError,
  RunFailure,
  UsageError,
} from '../../src/common/index.js';
import type { RunOutcome } from '../../src/common/index.js';
import { formatError } from '../../src/cli/handle-error.js';

const appError = (name: string, exitCode = 2, hint?: string) => ({
  message: `app "${name}": failed to render: boom`,
  exitCode,
  ...(hint ? { hint } : {}),
});

function failure(o: RunOutcome): RunFailure {
  try {
    concludeRun(o);
  } catch (err) {
    assert.ok(err instanceof RunFailure, String(err));
    return err;
  }
  assert.fail('concludeRun did not throw');
}

describe('run outcome -> exit code', () => {
  it('the rules apply in order: interrupted, errors, timeout, failed operation, differences, 0', () => {
    const all: RunOutcome = {
      command: 'sync',
      errors: [appError('a')],
      interrupted: true,
      timedOut: '5m',
      operations: [{ phase: 'Failed' }],
      differences: true,
    };
    assert.equal(exitCodeOfRun(all), ExitCode.INTERRUPTED);
    // A real error wins over the timeout: an outage must never read as "did not finish in time".
    assert.equal(exitCodeOfRun({ ...all, interrupted: false }), ExitCode.FAILURE);
    // Errors the timeout's abort caused ("interrupted", 130) are not the run's own.
    const stopped = { ...all, interrupted: false, errors: [appError('a', ExitCode.INTERRUPTED)] };
    assert.equal(exitCodeOfRun(stopped), ExitCode.OPERATION_FAILED);
    assert.equal(exitCodeOfRun({ ...all, interrupted: false, timedOut: undefined }), ExitCode.FAILURE);
    const noErrors = { ...all, interrupted: false, timedOut: undefined, errors: [] };
    assert.equal(exitCodeOfRun(noErrors), ExitCode.OPERATION_FAILED);
    assert.equal(exitCodeOfRun({ ...noErrors, operations: [] }), ExitCode.DIFFERENCES);
    assert.equal(exitCodeOfRun({ ...noErrors, operations: [], differences: false }), ExitCode.OK);
  });

  it('an error exits 2, or its own code when higher; never 1', () => {
    assert.equal(exitCodeOfRun({ command: 'diff', errors: [appError('a', 1)] }), 2);
    assert.equal(exitCodeOfRun({ command: 'diff', errors: [appError('a', 130)] }), 130);
    assert.equal(exitCodeOfRun({ command: 'render', errors: [new Error('plain')] }), 2);
    assert.equal(exitCodeOfRun({ command: 'render', errors: [new UsageError('bad')] }), 2);
  });

  it('sync: an operation fails unless Succeeded; a dry run needs no health; Progressing only with --async', () => {
    const code = (op: { phase?: string; dryRun?: boolean; health?: string }, requireHealthy: boolean) =>
      exitCodeOfRun({ command: 'sync', errors: [], operations: [op], requireHealthy });
    assert.equal(code({}, false), 1, 'no operation ran');
    assert.equal(code({ phase: 'Failed', health: 'Healthy' }, false), 1);
    assert.equal(code({ phase: 'Succeeded', dryRun: true, health: 'Degraded' }, true), 0);
    assert.equal(code({ phase: 'Succeeded', health: 'Degraded' }, false), 1);
    assert.equal(code({ phase: 'Succeeded', health: 'Progressing' }, true), 1);
    assert.equal(code({ phase: 'Succeeded', health: 'Progressing' }, false), 0);
    assert.equal(code({ phase: 'Succeeded', health: 'Healthy' }, true), 0);
  });

  it('a clean end returns the code instead of throwing', () => {
    assert.equal(concludeRun({ command: 'diff', errors: [], differences: true }), 1);
    assert.equal(concludeRun({ command: 'diff', errors: [] }), 0);
  });
});

describe('run outcome -> the error rendered', () => {
  it('every error of the run, one line each, in order; the last with its hint', () => {
    const f = failure({
      command: 'diff',
      errors: [
        appError('a'),
        new GitopsError('failed to list Applications: refused', { subject: 'cluster x' }),
        appError('c', 2, 'check the path'),
      ],
    });
    assert.equal(f.exitCode, 2);
    assert.deepEqual(formatError(f, ['diff'], 'diff'), [
      'error: app "a": failed to render: boom',
      'error: cluster x: failed to list Applications: refused',
      'error: app "c": failed to render: boom',
      'hint: check the path',
    ]);
  });

  it('interrupted: the errors it had, exit 130; with none, "<command> interrupted"', () => {
    const f = failure({ command: 'diff', errors: [appError('a'), appError('b')], interrupted: true });
    assert.equal(f.exitCode, ExitCode.INTERRUPTED);
    assert.deepEqual(formatError(f, ['diff'], 'diff'), [
      'error: app "a": failed to render: boom',
      'error: app "b": failed to render: boom',
    ]);
    const bare = failure({ command: 'sync', errors: [], interrupted: true });
    assert.equal(bare.exitCode, ExitCode.INTERRUPTED);
    assert.deepEqual(formatError(bare, ['sync'], 'sync'), ['error: sync interrupted']);
  });

  it('--timeout: exit 1 when only the apps it stopped failed; 2 with an error of its own; the errors, then the timeout', () => {
    const f = failure({ command: 'sync', errors: [appError('a', ExitCode.INTERRUPTED)], timedOut: '30s' });
    assert.equal(f.exitCode, ExitCode.OPERATION_FAILED);
    assert.deepEqual(formatError(f, ['sync'], 'sync'), [
      'error: app "a": failed to render: boom',
      'error: failed to sync: timeout 30s passed',
    ]);
    const outage = failure({
      command: 'sync',
      errors: [appError('a'), appError('b', ExitCode.INTERRUPTED)],
      timedOut: '30s',
    });
    assert.equal(outage.exitCode, ExitCode.FAILURE);
    assert.deepEqual(formatError(outage, ['sync'], 'sync'), [
      'error: app "a": failed to render: boom',
      'error: app "b": failed to render: boom',
      'error: failed to sync: timeout 30s passed',
    ]);
  });

  it('a thrown error keeps its own rendering (hints); a non-GitopsError names the command', () => {
    const usage = failure({ command: 'render', errors: [new UsageError('bad value', { subject: '--x' })] });
    assert.deepEqual(formatError(usage, ['render'], 'render'), [
      'error: --x: bad value',
      "hint: see 'kubectl gitops render --help'",
    ]);
    const plain = failure({ command: 'render', errors: [new Error('disk\nfull')] });
    assert.deepEqual(formatError(plain, ['render'], 'render'), [
      'error: render: failed to render: disk full',
    ]);
  });
});
