/**
 * Where the corpus runs. With the rig up (`npm run conformance -- up` wrote conformance/.work/rig.json):
 * its kube-apiserver, Argo CD and git server. Without it: our side alone, on our embedded API server
 * (`kubectl gitops embedded-cluster --simulate-workloads`) with Argo CD's CRDs and `file://` repositories,
 * so the runner, the cases and our side are exercised anywhere; every Argo CD value is then "not run".
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import type { Obj } from './case.js';
import { Kubectl, run } from './kubectl.js';

export interface Env {
  mode: 'rig' | 'embedded';
  /** The runner's own access (setup, reads). */
  kubectl: Kubectl;
  /** The kubeconfig our CLI runs with (the rig's Argo CD user, so the audit log names the same user). */
  ourKubeconfig: string;
  argocdNs: string;
  /** Argo CD's CLI (rig only). */
  argocd?: string;
  argocdKubeconfig?: string;
  auditLog?: string;
  /** Argo CD's Redis (host:port), which `argocd admin cluster shards` reads. */
  redis?: string;
  /** Argo CD's repo-server (host:port), which its ApplicationSet controller calls for git generators. */
  repoServer?: string;
  /** argocd-server (host:port, plaintext, no auth): `argocd app get` through it prints the resource tree's health. */
  argocdServer?: string;
  /** The user both sides write as, in the audit log. */
  auditUser?: string;
  gitRoot: string;
  gitBaseUrl: string;
  versions: Record<string, string>;
  /** Scratch folder of this run. */
  work: string;
  controller(verb: 'stop' | 'start'): Promise<void>;
  close(): Promise<void>;
}

export const ROOT = new URL('../../', import.meta.url).pathname.replace(/\/$/, '');
/** The rig's contract: `$CONFORMANCE_WORK/rig.json` (the rig's own override), else conformance/.work/rig.json. */
export const RIG_JSON = join(
  process.env['CONFORMANCE_WORK'] ?? join(ROOT, 'conformance', '.work'),
  'rig.json',
);
export const CLI = join(ROOT, 'bin', 'kubectl-gitops');

export async function openEnv(opts: { embedded?: boolean } = {}): Promise<Env> {
  const work = mkdtempSync(join(tmpdir(), 'kg-conformance-'));
  if (!opts.embedded && existsSync(RIG_JSON)) {
    const rig = JSON.parse(readFileSync(RIG_JSON, 'utf8')) as Obj;
    if (rig.kubeOnly)
      throw new Error(
        `${RIG_JSON}: the rig runs Kubernetes alone (up --kube-only): the corpus needs Argo CD`,
      );
    const kubectl = new Kubectl(rig.kubeconfig);
    // Argo CD's CLI in core mode takes its namespace from the kubeconfig's context: a copy that says argocd.
    const argocdKubeconfig = join(work, 'argocd-kubeconfig');
    copyFileSync(rig.argocdKubeconfig ?? rig.kubeconfig, argocdKubeconfig);
    await run('kubectl', [
      '--kubeconfig',
      argocdKubeconfig,
      'config',
      'set-context',
      '--current',
      `--namespace=${rig.argocdNamespace ?? 'argocd'}`,
    ]);
    return {
      mode: 'rig',
      kubectl,
      ourKubeconfig: rig.argocdKubeconfig ?? rig.kubeconfig,
      argocdNs: rig.argocdNamespace ?? 'argocd',
      argocd: rig.argocd,
      argocdKubeconfig,
      auditLog: rig.auditLog,
      ...(rig.redis ? { redis: String(rig.redis) } : {}),
      ...(rig.repoServer ? { repoServer: String(rig.repoServer) } : {}),
      ...(rig.argocdServer ? { argocdServer: String(rig.argocdServer) } : {}),
      auditUser: rig.argocdKubeconfig ? 'argocd-application-controller' : 'conformance-admin',
      gitRoot: rig.gitRoot,
      gitBaseUrl: rig.gitBaseUrl,
      versions: { ...(rig.versions ?? {}) },
      work,
      async controller(verb) {
        // The rig's own command (rig.json `controller.stop|start`), run in the checkout that started the rig.
        const command = String(rig.controller?.[verb] ?? `npm run conformance -- controller ${verb}`);
        const r = await run('sh', ['-c', command], {
          // this checkout (the command finds the rig by CONFORMANCE_WORK, so a rig.json outside the checkout,
          // e.g. CONFORMANCE_WORK=/tmp/rig, works too), or $CONFORMANCE_RIG_ROOT
          cwd: process.env['CONFORMANCE_RIG_ROOT'] ?? ROOT,
          env: { CONFORMANCE_WORK: dirname(RIG_JSON) },
        });
        if (r.code !== 0)
          throw new Error(`conformance rig: failed to ${verb} Argo CD's controller: ${r.stderr.trim()}`);
      },
      async close() {
        rmSync(work, { recursive: true, force: true });
      },
    };
  }
  return startEmbedded(work);
}

async function startEmbedded(work: string): Promise<Env> {
  const kubeconfig = join(work, 'kubeconfig');
  const child: ChildProcess = spawn(
    CLI,
    ['embedded-cluster', '--kubeconfig-out', kubeconfig, '--simulate-workloads', '--simulate-delay', '10'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  for (let i = 0; i < 200 && !existsSync(kubeconfig); i++) {
    if (child.exitCode !== null) throw new Error(`embedded-cluster: failed to start: ${stderr.trim()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const kubectl = new Kubectl(kubeconfig);
  const argocdNs = 'argocd';
  const crds = join(ROOT, 'test', 'fixtures', 'argocd-crds');
  const objs: Obj[] = readdirSync(crds)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => parse(readFileSync(join(crds, f), 'utf8')) as Obj);
  await kubectl.create([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: argocdNs } }, ...objs]);
  await kubectl.create([
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'argocd-cm', namespace: argocdNs }, data: {} },
    {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'AppProject',
      metadata: { name: 'default', namespace: argocdNs },
      spec: {
        sourceRepos: ['*'],
        destinations: [{ server: '*', namespace: '*' }],
        clusterResourceWhitelist: [{ group: '*', kind: '*' }],
      },
    },
  ]);
  const gitRoot = join(work, 'git');
  mkdirSync(gitRoot);
  const version = await run(CLI, ['version', '-o', 'json']);
  return {
    mode: 'embedded',
    kubectl,
    ourKubeconfig: kubeconfig,
    argocdNs,
    gitRoot,
    gitBaseUrl: pathToFileURL(gitRoot).href,
    versions: {
      ours: version.stdout.trim() ? String((JSON.parse(version.stdout) as Obj).version ?? '') : '',
    },
    work,
    async controller() {},
    async close() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(work, { recursive: true, force: true });
    },
  };
}
