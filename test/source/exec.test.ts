import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { ExecError, execProcess, Limiter, trimStderr, which } from '../../src/source/exec.js';
import { tempDir } from '../support/git.js';

describe('child processes for git and renderers', () => {
  it('a failing tool: one-line trimmed stderr, credentials redacted, exit code kept', async () => {
    const err = await execProcess('sh', [
      '-c',
      'echo "fatal: could not read\n  from https://u:pw@host/x.git" >&2; exit 3',
    ]).then(
      () => assert.fail('expected a failure'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ExecError);
    assert.equal(err.exitCode, 3);
    assert.equal(err.message, 'sh failed: fatal: could not read from https://host/x.git');
  });

  it('a tool that runs too long is killed and reported as timed out', async () => {
    await assert.rejects(execProcess('sleep', ['30'], { timeoutMs: 200 }), (e: unknown) => {
      assert.ok(e instanceof ExecError);
      assert.equal(e.timedOut, true);
      assert.match(e.message, /^sleep failed: timed out after 200 ms$/);
      return true;
    });
  });

  it('an aborted run kills the tool', async () => {
    const abort = new AbortController();
    const run = execProcess('sleep', ['30'], { signal: abort.signal });
    abort.abort();
    await assert.rejects(run, /sleep failed: interrupted/);
  });

  it('a missing binary says it is not installed', async () => {
    await assert.rejects(execProcess('no-such-tool-xyz', []), /no-such-tool-xyz is not installed/);
    assert.equal(await which('sh', tempDir()), undefined);
    assert.match((await which('sh')) ?? '', /\/sh$/);
  });

  it('trimStderr keeps the tail', () => {
    assert.equal(trimStderr(`${'x'.repeat(700)}END`, 10), `...${'x'.repeat(7)}END`);
  });

  it('Limiter runs at most N tasks at once, in FIFO order', async () => {
    const limiter = new Limiter(2);
    let active = 0;
    let peak = 0;
    const order: number[] = [];
    const gates: (() => void)[] = [];
    const tasks = [0, 1, 2, 3, 4].map((i) =>
      limiter.run(async () => {
        active++;
        peak = Math.max(peak, active);
        order.push(i);
        await new Promise<void>((r) => gates.push(r));
        active--;
      }),
    );
    while (order.length < 5) {
      await new Promise((r) => setImmediate(r));
      gates.shift()?.();
    }
    gates.forEach((g) => g());
    await Promise.all(tasks);
    assert.equal(peak, 2);
    assert.deepEqual(order, [0, 1, 2, 3, 4]);
  });
});
