/** The runner's cluster access: the real kubectl and our own CLI as child processes, never in-process. */
import { spawn } from 'node:child_process';
import type { Obj } from './case.js';

export interface ProcResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs a command to its end (never throws for a non-zero exit: check `code`). */
export function run(
  command: string,
  args: readonly string[],
  opts: { input?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; cwd?: string } = {},
): Promise<ProcResult> {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], {
      env: { ...process.env, NO_COLOR: '1', ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
    });
    let stdout = '';
    let stderr = '';
    const timer = opts.timeoutMs
      ? setTimeout(() => {
          stderr += `\n(killed after ${opts.timeoutMs} ms)`;
          child.kill('SIGTERM');
        }, opts.timeoutMs)
      : undefined;
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (timer) clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - t0 });
    });
    child.stdin.on('error', () => {}); // a command that exits before reading its input
    child.stdin.end(opts.input ?? '');
  });
}

export class Kubectl {
  constructor(readonly kubeconfig: string) {}

  async run(args: readonly string[], input?: string): Promise<ProcResult> {
    return run('kubectl', ['--kubeconfig', this.kubeconfig, ...args], input === undefined ? {} : { input });
  }

  async must(args: readonly string[], input?: string): Promise<string> {
    const r = await this.run(args, input);
    if (r.code !== 0)
      throw new Error(
        `kubectl ${args.slice(0, 3).join(' ')}: failed: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`,
      );
    return r.stdout;
  }

  /** Creates objects (a v1 List), reporting each refusal but going on: returns the errors. */
  async create(objs: readonly Obj[]): Promise<string[]> {
    if (objs.length === 0) return [];
    const r = await this.run(
      ['create', '--validate=false', '-f', '-', '-o', 'name'],
      JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objs }),
    );
    return r.code === 0
      ? []
      : r.stderr
          .trim()
          .split('\n')
          .filter((l) => l.startsWith('Error') || l.startsWith('error'));
  }

  /** Writes each object's `status` through the status subresource (one PUT per object, in one kubectl call). */
  async writeStatuses(objs: readonly Obj[]): Promise<string[]> {
    // A Pod's qosClass is the server's (ComputePodQOS) and immutable: a recorded one that differs (the
    // vector's Pod had other resources) would refuse the whole write, so it is left out and kept.
    const items = objs
      .filter((o) => o.status)
      .map((o) => {
        if (o.kind !== 'Pod' || o.status?.qosClass === undefined) return o;
        const { qosClass: _server, ...status } = o.status as Obj;
        return { ...o, status };
      });
    if (items.length === 0) return [];
    const r = await this.run(
      ['replace', '--subresource=status', '--validate=false', '-f', '-', '-o', 'name'],
      JSON.stringify({ apiVersion: 'v1', kind: 'List', items }),
    );
    return r.code === 0
      ? []
      : r.stderr
          .trim()
          .split('\n')
          .filter((l) => !l.startsWith('Warning:'));
  }

  async getJson(args: readonly string[]): Promise<Obj | undefined> {
    const r = await this.run(['get', ...args, '-o', 'json']);
    if (r.code !== 0) return undefined;
    return JSON.parse(r.stdout) as Obj;
  }

  async merge(resource: string, ns: string, patch: unknown): Promise<void> {
    await this.must(['patch', resource, '-n', ns, '--type=merge', '-p', JSON.stringify(patch)]);
  }
}
