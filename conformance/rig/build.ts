/**
 * Builds the oracles from the Go module proxy (docs/conformance.md): two small Go modules of ours,
 * conformance/kubernetes (kube-apiserver, kube-controller-manager from k8s.io/kubernetes) and
 * conformance/argocd (the multi-call `argocd` binary from github.com/argoproj/argo-cd/v3), each built with
 * `go build -trimpath` into bin/. The go command downloads what the modules need (and, for Argo CD, the Go
 * toolchain named by its go.mod's `toolchain` line) into the usual module and build caches, so a second
 * build on the same machine only links, and an unchanged one is skipped: bin/<module>.stamp records a hash
 * of go.mod, go.sum and the flags.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, openSync, closeSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, CONFORMANCE_DIR } from './paths.js';
import { tail } from './procs.js';

export interface GoModuleBuild {
  /** Folder under conformance/ holding go.mod. */
  module: string;
  /** Output name -> package. */
  outputs: Record<string, string>;
  ldflags: string[];
  env: Record<string, string>;
  version: string;
}

function goMod(module: string): string {
  return readFileSync(join(CONFORMANCE_DIR, module, 'go.mod'), 'utf8');
}

/** The version `path` is required at (or replaced with) in a go.mod. */
function requiredVersion(mod: string, path: string): string {
  const escaped = path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const replaced = new RegExp(`^\\s*${escaped} => \\S+ (v\\S+)`, 'm').exec(mod);
  const required = new RegExp(`^\\s*(?:require\\s+)?${escaped} (v\\S+)`, 'm').exec(mod);
  const v = replaced?.[1] ?? required?.[1];
  if (!v) throw new Error(`conformance/go.mod: failed to find the version of ${path}`);
  return v;
}

export function kubernetesBuild(): GoModuleBuild {
  const mod = goMod('kubernetes');
  const version = requiredVersion(mod, 'k8s.io/kubernetes');
  const [major, minor] = version.replace(/^v/, '').split('.');
  // What the Kubernetes release build stamps (hack/lib/version.sh): the version /version reports, and the
  // one client-go puts in the binaries' User-Agent (kube-controller-manager/v1.34.4 ...).
  const ldflags = ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version'].flatMap((pkg) => [
    `-X ${pkg}.gitVersion=${version}`,
    `-X ${pkg}.gitMajor=${major}`,
    `-X ${pkg}.gitMinor=${minor}`,
    `-X ${pkg}.gitTreeState=clean`,
  ]);
  return {
    module: 'kubernetes',
    outputs: {
      'kube-apiserver': 'k8s.io/kubernetes/cmd/kube-apiserver',
      'kube-controller-manager': 'k8s.io/kubernetes/cmd/kube-controller-manager',
    },
    ldflags,
    env: {},
    version,
  };
}

export function argocdBuild(): GoModuleBuild {
  const mod = goMod('argocd');
  const version = requiredVersion(mod, 'github.com/argoproj/argo-cd/v3');
  const toolchain = /^toolchain (go\S+)/m.exec(mod)?.[1];
  const pkg = 'github.com/argoproj/argo-cd/v3/common';
  return {
    module: 'argocd',
    outputs: { argocd: 'github.com/argoproj/argo-cd/v3/cmd' },
    // What Argo CD's Makefile stamps (version from its VERSION file, kubectl's version from go.mod).
    ldflags: [
      `-X ${pkg}.version=${version.replace(/^v/, '')}`,
      `-X ${pkg}.gitTreeState=clean`,
      `-X ${pkg}.kubectlVersion=${requiredVersion(mod, 'k8s.io/kubectl')}`,
    ],
    // Argo CD 3.6 needs a newer Go than the machine's; the go command fetches it from the module proxy.
    env: toolchain ? { GOTOOLCHAIN: toolchain } : {},
    version,
  };
}

function stampOf(b: GoModuleBuild): string {
  const dir = join(CONFORMANCE_DIR, b.module);
  const h = createHash('sha256');
  for (const f of ['go.mod', 'go.sum']) h.update(readFileSync(join(dir, f)));
  h.update(JSON.stringify([b.outputs, b.ldflags, b.env]));
  return h.digest('hex');
}

export function isBuilt(b: GoModuleBuild): boolean {
  const stamp = join(BIN, `${b.module}.stamp`);
  return (
    existsSync(stamp) &&
    readFileSync(stamp, 'utf8').trim() === stampOf(b) &&
    Object.keys(b.outputs).every((o) => existsSync(join(BIN, o)))
  );
}

function run(
  cmd: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
  log: string,
): Promise<number> {
  const fd = openSync(log, 'a');
  return new Promise<number>((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', fd, fd] });
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? 1));
  }).finally(() => closeSync(fd));
}

export interface BuildTiming {
  output: string;
  seconds: number;
  skipped: boolean;
}

/** Builds one module's binaries unless its stamp says they are current; returns the time each took. */
export async function buildModule(b: GoModuleBuild, say: (line: string) => void): Promise<BuildTiming[]> {
  if (isBuilt(b)) return Object.keys(b.outputs).map((output) => ({ output, seconds: 0, skipped: true }));
  mkdirSync(BIN, { recursive: true });
  const dir = join(CONFORMANCE_DIR, b.module);
  const log = join(BIN, `build-${b.module}.log`);
  writeFileSync(log, '');
  const timings: BuildTiming[] = [];
  for (const [output, pkg] of Object.entries(b.outputs)) {
    say(`building ${output} ${b.version} (go build -trimpath; log ${log})`);
    const started = Date.now();
    const args = ['build', '-trimpath', '-ldflags', b.ldflags.join(' '), '-o', join(BIN, output), pkg];
    const code = await run('go', args, dir, b.env, log);
    if (code !== 0)
      throw new Error(`${output}: failed to build (go exited ${code}); ${log} ends:\n${tail(log)}`);
    const seconds = Math.round((Date.now() - started) / 100) / 10;
    timings.push({ output, seconds, skipped: false });
    say(`built ${output} in ${seconds}s`);
  }
  writeFileSync(join(BIN, `${b.module}.stamp`), stampOf(b) + '\n');
  return timings;
}

/** Builds everything the rig runs. */
/** Builds Kubernetes and Argo CD (Kubernetes alone for `up --kube-only`). */
export async function buildAll(
  say: (line: string) => void,
  opts: { kubeOnly?: boolean } = {},
): Promise<BuildTiming[]> {
  const timings: BuildTiming[] = [];
  const builds = opts.kubeOnly ? [kubernetesBuild()] : [kubernetesBuild(), argocdBuild()];
  for (const b of builds) timings.push(...(await buildModule(b, say)));
  return timings;
}
