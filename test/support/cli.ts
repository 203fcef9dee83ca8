/** Runs the built CLI (bin/kubectl-gitops -> dist/) as a child process, as users and kubectl do. */
import { spawn } from 'node:child_process';
import { toolsDir } from '../../src/source/render/tool-versions.js';
import { launcher } from './paths.js';

// Tests often give the CLI its own XDG_CACHE_HOME (a fresh manifest cache): the binaries `npm run tools`
// installed stay where this process finds them.
const TOOLS = toolsDir();

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; input?: string; command?: string; cwd?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.command ?? launcher, [...args], {
      env: { ...process.env, NO_COLOR: '1', KUBECTL_GITOPS_TOOLS: TOOLS, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(options.cwd ? { cwd: options.cwd } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}
