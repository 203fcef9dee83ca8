/**
 * The rig's processes: each started detached (its own process group, so `down` from another shell stops
 * it and everything it spawned), its stdout and stderr appended to `logs/<name>.log`, and its pid and the
 * way it was started kept in `run/state.json`, so `controller stop|start` can stop and start one alone.
 * A pid is only signalled while /proc says it is still the process we started (same executable path in
 * its command line), never a recycled one.
 */
import { spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  writeFileSync,
} from 'node:fs';
import { createServer, connect } from 'node:net';
import { join } from 'node:path';
import { LOGS, STATE_JSON } from './paths.js';

export interface ProcSpec {
  name: string;
  command: string;
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
}

export interface ProcEntry extends ProcSpec {
  pid: number;
  log: string;
  startedAt: string;
}

export interface RigState {
  procs: Record<string, ProcEntry>;
  /** Anything `up` wants `down`, `status` or `controller start` to know (ports, paths). */
  info: Record<string, unknown>;
}

export function readState(): RigState {
  if (!existsSync(STATE_JSON)) return { procs: {}, info: {} };
  return JSON.parse(readFileSync(STATE_JSON, 'utf8')) as RigState;
}

export function writeState(state: RigState): void {
  writeFileSync(STATE_JSON, JSON.stringify(state, null, 2) + '\n');
}

export function logPath(name: string): string {
  return join(LOGS, `${name}.log`);
}

/** Starts `spec` detached, logging to logs/<name>.log; records it in the state. */
export function startProcess(state: RigState, spec: ProcSpec): ProcEntry {
  const log = logPath(spec.name);
  const fd = openSync(log, 'a');
  try {
    const child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      env: { ...process.env, ...spec.env },
      stdio: ['ignore', fd, fd],
      detached: true,
    });
    if (child.pid === undefined) throw new Error(`${spec.name}: failed to start ${spec.command}`);
    child.unref();
    const entry: ProcEntry = { ...spec, pid: child.pid, log, startedAt: new Date().toISOString() };
    state.procs[spec.name] = entry;
    writeState(state);
    return entry;
  } finally {
    closeSync(fd);
  }
}

/**
 * True while `entry.pid` is alive and still runs `entry.command` (its /proc exe: some programs, redis
 * among them, rewrite their command line).
 */
export function isRunning(entry: ProcEntry | undefined): boolean {
  if (!entry) return false;
  try {
    const exe = readlinkSync(`/proc/${entry.pid}/exe`);
    const stat = readFileSync(`/proc/${entry.pid}/stat`, 'utf8');
    // A zombie (state Z) has exited; its parent is gone, so nobody reaps it but init.
    const stateChar = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return stateChar !== 'Z' && exe === realpathSync(entry.command);
  } catch {
    return false;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Stops one process group (SIGTERM, then SIGKILL after `graceMs`); forgets it in the state. */
export async function stopProcess(state: RigState, name: string, graceMs = 10_000): Promise<boolean> {
  const entry = state.procs[name];
  if (!entry) return false;
  let stopped = false;
  if (isRunning(entry)) {
    const signal = (sig: NodeJS.Signals): void => {
      try {
        process.kill(-entry.pid, sig);
      } catch {
        try {
          process.kill(entry.pid, sig);
        } catch {
          // gone already
        }
      }
    };
    signal('SIGTERM');
    const deadline = Date.now() + graceMs;
    while (isRunning(entry) && Date.now() < deadline) await sleep(100);
    if (isRunning(entry)) signal('SIGKILL');
    while (isRunning(entry)) await sleep(50);
    stopped = true;
  }
  delete state.procs[name];
  writeState(state);
  return stopped;
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** `n` distinct free ports. */
export async function freePorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}

export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** The last `lines` lines of a log, for error messages. */
export function tail(file: string, lines = 15): string {
  if (!existsSync(file)) return '';
  const text = readFileSync(file, 'utf8').trimEnd().split('\n');
  return text.slice(-lines).join('\n');
}

/**
 * Waits until `check` returns true (checked every `everyMs`), failing with the log's tail if `entry` exits
 * or `timeoutMs` passes.
 */
export async function waitUntil(
  what: string,
  check: () => Promise<boolean>,
  opts: { timeoutMs: number; entry?: ProcEntry; everyMs?: number },
): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (opts.entry && !isRunning(opts.entry)) {
      throw new Error(
        `${what}: failed to start: the process exited; ${opts.entry.log} ends:\n${tail(opts.entry.log)}`,
      );
    }
    if (Date.now() > deadline) {
      const log = opts.entry ? `; ${opts.entry.log} ends:\n${tail(opts.entry.log)}` : '';
      throw new Error(`${what}: failed to become ready within ${opts.timeoutMs / 1000}s${log}`);
    }
    await sleep(opts.everyMs ?? 250);
  }
}
