/**
 * Ctrl-C for the whole process (src/common/interrupt.ts), in a child process so real signals are sent:
 * the first signal aborts `interruptSignal` and sets exit code 130; a command that does not end within the
 * grace period is ended with 130; a second signal exits at once, whatever the command is doing.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../support/paths.js';

const moduleUrl = pathToFileURL(join(repoRoot, 'src', 'common', 'interrupt.ts')).href;

/** Runs `body` (ESM, with `interrupt` imported) under tsx; resolves with the exit code and output. */
function child(
  body: string,
): Promise<{ code: number | null; signal: string | null; out: string; err: string }> {
  const script = `import * as interrupt from ${JSON.stringify(moduleUrl)};\n${body}`;
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    p.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    p.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    p.on('error', reject);
    p.on('close', (code, signal) => resolve({ code, signal, out, err }));
  });
}

describe('interrupt handling (real signals, child process)', () => {
  it('the first signal aborts interruptSignal; a second one exits 130 at once, even when the command handles it', async () => {
    const r = await child(`
interrupt.installInterruptHandlers(60_000);
interrupt.handleInterruptInCommand();
interrupt.interruptSignal.addEventListener('abort', () => {
  process.stdout.write('aborted: ' + interrupt.interruptSignal.reason.message + '\\n');
  // Still busy (a command finishing its shutdown): the user presses Ctrl-C again.
  setImmediate(() => process.kill(process.pid, 'SIGINT'));
});
setInterval(() => process.stdout.write(''), 1000);
process.kill(process.pid, 'SIGINT');
`);
    assert.equal(r.signal, null, r.err);
    assert.equal(r.code, 130, r.err);
    assert.equal(r.out, 'aborted: interrupted (SIGINT)\n');
  });

  it('a command that does not end within the grace period is ended with 130 and "error: interrupted"', async () => {
    const r = await child(`
interrupt.installInterruptHandlers(50);
interrupt.interruptSignal.addEventListener('abort', () => process.stdout.write('aborted\\n'));
setInterval(() => process.stdout.write(''), 1000);
process.kill(process.pid, 'SIGTERM');
`);
    assert.equal(r.code, 130, r.err);
    assert.equal(r.out, 'aborted\n');
    assert.equal(r.err, 'error: interrupted\n');
  });

  it('a command that ends by itself after the first signal keeps exit code 130', async () => {
    const r = await child(`
interrupt.installInterruptHandlers(60_000);
const keep = setInterval(() => process.stdout.write(''), 1000);
interrupt.interruptSignal.addEventListener('abort', () => clearInterval(keep));
process.kill(process.pid, 'SIGINT');
`);
    assert.equal(r.code, 130, r.err);
    assert.equal(r.err, '');
  });
});
