/**
 * Controllers the runner starts itself (the appsets and operations phases): `kubectl gitops controller`
 * with a phase's flags, its output appended to a log under conformance/.work/logs (kept after the run),
 * and a stop that sends SIGTERM, then SIGKILL after a grace period.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { CLI, ROOT, type Env } from './env.js';

export const LOGS = join(ROOT, 'conformance', '.work', 'logs');

export function logFile(name: string): WriteStream {
  mkdirSync(LOGS, { recursive: true });
  return createWriteStream(join(LOGS, name), { flags: 'a' });
}

/** Runs `kubectl gitops controller <flags>` on Argo CD's namespace as the rig's Argo CD user, `-o json`. */
export function startOurController(env: Env, log: string, flags: readonly string[]): ChildProcess {
  const out = logFile(log);
  const child = spawn(
    CLI,
    [
      'controller',
      ...flags,
      '--kubeconfig',
      env.ourKubeconfig,
      '--argocd-namespace',
      env.argocdNs,
      '-o',
      'json',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout!.pipe(out);
  child.stderr!.pipe(out);
  return child;
}

/** SIGTERM, then SIGKILL when it has not exited after `graceMs`. */
export async function stopProcess(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, graceMs))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}
