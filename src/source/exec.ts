/**
 * Child processes for git and the renderers: one `Exec` function (injectable), a concurrency `Limiter`, and
 * PATH lookup. Guarantees:
 * - every process gets a timeout and the caller's AbortSignal (killed with SIGTERM, then SIGKILL after 2 s);
 * - a failure is an `ExecError` whose message is one line: "<tool> <subcommand> failed: <stderr>" with the
 *   stderr trimmed (last 600 characters, whitespace collapsed) and URL credentials redacted;
 * - `GIT_TERMINAL_PROMPT=0` is always set, so a missing credential fails instead of prompting.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { onAbort as onAbortOf } from '../common/index.js';
import { redactText } from './url.js';

export interface ExecOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
  signal?: AbortSignal;
  /**
   * Start the process in its own process group and signal the whole group on timeout or abort, so the
   * children of a shell script stop too (what Argo CD's cmp-server does for plugin commands).
   */
  processGroup?: boolean;
}

export interface ExecResult {
  stdout: string;
  stderr: string;
}

export type Exec = (command: string, args: readonly string[], options?: ExecOptions) => Promise<ExecResult>;

export const DEFAULT_TIMEOUT_MS = 90_000;

export class ExecError extends Error {
  constructor(
    message: string,
    readonly stderr: string,
    readonly exitCode: number | null,
    readonly timedOut: boolean,
    /** What the tool printed on stdout before failing (helm prints some reasons there). */
    readonly stdout = '',
  ) {
    super(message);
    this.name = 'ExecError';
  }
}

/** The trimmed, redacted, single-line tail of a tool's stderr. */
export function trimStderr(stderr: string, max = 600): string {
  const text = redactText(stderr).replace(/\s+/g, ' ').trim();
  return text.length > max ? `...${text.slice(-max)}` : text;
}

function label(command: string, args: readonly string[]): string {
  const base = command.split('/').at(-1) ?? command;
  const sub = args.find((a) => /^[a-z][a-z-]*$/.test(a));
  return sub ? `${base} ${sub}` : base;
}

export const execProcess: Exec = (command, args, options = {}) =>
  new Promise((resolve, reject) => {
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env, GIT_TERMINAL_PROMPT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(options.processGroup ? { detached: true } : {}),
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    let aborted = false;
    let killTimer: NodeJS.Timeout | undefined;
    const signal = (sig: NodeJS.Signals) => {
      try {
        if (options.processGroup && child.pid !== undefined) process.kill(-child.pid, sig);
        else child.kill(sig);
      } catch {
        // already gone
      }
    };
    const kill = () => {
      signal('SIGTERM');
      killTimer = setTimeout(() => signal('SIGKILL'), 2000);
      killTimer.unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, timeoutMs);
    const onAbort = () => {
      aborted = true;
      kill();
    };
    // Renders and git commands at once share the run's signal: one listener on it for all (common/signals.ts).
    const unhook = options.signal ? onAbortOf(options.signal, onAbort) : () => undefined;
    if (options.signal?.aborted) onAbort();
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    const done = () => {
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      unhook();
    };
    child.on('error', (e: NodeJS.ErrnoException) => {
      done();
      const why = e.code === 'ENOENT' ? `${command} is not installed (not found on PATH)` : e.message;
      reject(new ExecError(why, '', null, false));
    });
    child.on('close', (code) => {
      done();
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      if (code === 0 && !timedOut && !aborted) return resolve({ stdout, stderr });
      const what = label(command, args);
      const why = timedOut
        ? `timed out after ${timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`}`
        : aborted
          ? 'interrupted'
          : trimStderr(stderr) || `exit code ${code}`;
      reject(new ExecError(`${what} failed: ${why}`, stderr, code, timedOut, stdout));
    });
  });

/** At most `limit` tasks at a time; the rest wait in FIFO order. */
export class Limiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {
    if (limit < 1) throw new RangeError('limit must be >= 1');
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((r) => this.waiting.push(r));
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}

/** The absolute path of `command` on PATH, or undefined. */
export async function which(command: string, path = process.env['PATH'] ?? ''): Promise<string | undefined> {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, command);
    try {
      await access(candidate, constants.X_OK);
      if ((await stat(candidate)).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}
