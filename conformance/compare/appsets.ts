/**
 * ApplicationSet cases (`appset`, phase `appsets`; docs/conformance.md): every case's ApplicationSet is
 * reconciled by Argo CD's ApplicationSet controller and by ours, one side after the other, and what each
 * leaves is compared field by field.
 *
 * 1. Set-up: per case and side a repository (`<id>-a`, `<id>-o`) and a namespace.
 * 2. Argo CD's side: every case's set `<id>-a` is created; Argo CD's `argocd-applicationset-controller`
 *    (the rig's `argocd` binary run under that name, with the rig's repo-server, `--enable-progressive-
 *    syncs`) runs until every set has settled (below), then is stopped.
 * 3. Our side: the sets `<id>-o` are created; `kubectl gitops controller --no-applications` (our
 *    ApplicationSet controller alone, with `--enable-progressive-syncs`) runs until they settle, then gets
 *    SIGTERM. Argo CD's application controller keeps running for both sides (it reconciles the generated
 *    Applications of both, so a rolling sync progresses the same way on each).
 * 4. Compared per case: the set's `status` (conditions by type; `resources` by name without their sync and
 *    health status, which follow the application controller's timing; `applicationStatus` by
 *    application; `health`) and each generated Application (labels, annotations, finalizers, owner
 *    references, spec, operation), names normalised (`<id>-a` / `<id>-o` -> `<id>-X`), times masked, uids
 *    dropped, empty values dropped as Go's omitempty does.
 * 5. Clean-up: the sets deleted (the garbage collector deletes their Applications), then the namespaces
 *    and the repositories.
 * A set has settled when it has a ParametersGenerated condition and either ErrorOccurred True or
 * ResourcesUpToDate True (with a RollingSync strategy: also RolloutProgressing False), and its
 * resourceVersion has not moved for 3 s; at most `SETTLE_MS`. Without the rig, our side runs alone on the
 * embedded server and only our values are recorded.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { CaseOutcome } from './batch.js';
import { fill, sideName, type Case, type Obj, type Side, type SideValues } from './case.js';
import type { Env } from './env.js';
import { makeRepo } from './git.js';
import { compareFields, keyed, normaliseTimes, replaceTokens } from './normalise.js';
import { omitEmpty } from './views.js';
import { LOGS, logFile, startOurController, stopProcess } from './processes.js';

const SETTLE_MS = 120_000;
/** The controllers' logs (kept after the run; the run's scratch folder is not). */
const QUIET_MS = 3_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function values(env: Env, c: Case, side: Side): SideValues {
  const ns = sideName(c, side);
  return { ns, argocdNs: env.argocdNs, repoUrl: () => `${env.gitBaseUrl}/${ns}.git` };
}

function sideSet(env: Env, c: Case, side: Side): Obj {
  const set = fill(structuredClone(c.appset!), values(env, c, side));
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'ApplicationSet',
    ...set,
    metadata: { ...(set.metadata ?? {}), name: sideName(c, side), namespace: env.argocdNs },
  };
}

const cond = (set: Obj | undefined, type: string): Obj | undefined =>
  (set?.status?.conditions as Obj[] | undefined)?.find((x) => x.type === type);

function settled(set: Obj | undefined): boolean {
  if (!set || !cond(set, 'ParametersGenerated')) return false;
  const done =
    cond(set, 'ErrorOccurred')?.status === 'True' || cond(set, 'ResourcesUpToDate')?.status === 'True';
  const rolling = set.spec?.strategy?.type === 'RollingSync';
  return (
    done &&
    (!rolling ||
      cond(set, 'RolloutProgressing')?.status === 'False' ||
      cond(set, 'ErrorOccurred')?.status === 'True')
  );
}

async function readSets(env: Env, names: string[]): Promise<Map<string, Obj>> {
  const list = await env.kubectl.getJson(['applicationsets', '-n', env.argocdNs]);
  const out = new Map<string, Obj>();
  for (const s of (list?.items ?? []) as Obj[])
    if (names.includes(s.metadata?.name)) out.set(s.metadata.name, s);
  return out;
}

/** Waits until every named set has settled (and no resourceVersion moved for QUIET_MS), or the limit. */
async function waitSettled(
  env: Env,
  names: string[],
  notes: Map<string, string[]>,
): Promise<Map<string, Obj>> {
  const t0 = Date.now();
  let last = '';
  let quietSince = Date.now();
  for (;;) {
    const sets = await readSets(env, names);
    const versions = names.map((n) => sets.get(n)?.metadata?.resourceVersion ?? '').join(',');
    if (versions !== last) {
      last = versions;
      quietSince = Date.now();
    }
    const all = names.every((n) => settled(sets.get(n)));
    if (all && Date.now() - quietSince >= QUIET_MS) return sets;
    if (Date.now() - t0 > SETTLE_MS) {
      for (const n of names)
        if (!settled(sets.get(n)))
          notes.get(n)?.push(`appsets: ${n} not settled within ${SETTLE_MS / 1000} s`);
      return sets;
    }
    await sleep(500);
  }
}

/** The generated Applications of the named sets (controller owner), by set. */
async function readApps(env: Env, names: string[]): Promise<Map<string, Obj[]>> {
  const list = await env.kubectl.getJson(['applications', '-n', env.argocdNs]);
  const out = new Map<string, Obj[]>(names.map((n) => [n, []]));
  for (const a of (list?.items ?? []) as Obj[]) {
    const owner = ((a.metadata?.ownerReferences ?? []) as Obj[]).find(
      (r) => r.controller && r.kind === 'ApplicationSet',
    );
    if (owner && out.has(owner.name)) out.get(owner.name)!.push(a);
  }
  return out;
}

/** What is compared of a set and its Applications (see the header). */
export function appsetView(set: Obj | undefined, apps: readonly Obj[]): Obj | undefined {
  if (!set) return undefined;
  const st = (set.status ?? {}) as Obj;
  return omitEmpty(
    normaliseTimes({
      status: {
        conditions: keyed(st.conditions as Obj[] | undefined, (c) => String(c.type)),
        health: st.health,
        resources: keyed(
          ((st.resources ?? []) as Obj[]).map(({ status: _s, health: _h, ...r }) => r),
          (r) => String(r.name),
        ),
        resourcesCount: st.resourcesCount,
        applicationStatus: keyed(st.applicationStatus as Obj[] | undefined, (a) => String(a.application)),
      },
      applications: keyed(
        apps.map((a) => ({
          name: a.metadata?.name,
          metadata: {
            labels: a.metadata?.labels,
            annotations: a.metadata?.annotations,
            finalizers: a.metadata?.finalizers,
            ownerReferences: ((a.metadata?.ownerReferences ?? []) as Obj[]).map(({ uid: _u, ...r }) => r),
          },
          spec: a.spec,
          operation: a.operation,
        })),
        (a) => String(a.name),
      ),
    }),
  ) as Obj;
}

/** Starts Argo CD's ApplicationSet controller (the rig's binary under that name); resolves to its process. */
async function startArgoAppsets(env: Env): Promise<ChildProcess> {
  const log = logFile('argocd-applicationset-controller.log');
  const child = spawn(
    env.argocd!,
    [
      '--kubeconfig',
      env.ourKubeconfig,
      '--namespace',
      env.argocdNs,
      ...(env.repoServer ? ['--argocd-repo-server', env.repoServer, '--repo-server-plaintext'] : []),
      '--enable-progressive-syncs',
      '--metrics-addr',
      '0',
      '--probe-addr',
      '0',
      '--webhook-addr',
      `127.0.0.1:${await freePort()}`,
      '--logformat',
      'text',
    ],
    {
      // controller-runtime's manager reads KUBECONFIG (the --kubeconfig flag reaches Argo CD's clients only).
      env: {
        ...process.env,
        ARGOCD_BINARY_NAME: 'argocd-applicationset-controller',
        KUBECONFIG: env.ourKubeconfig,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  return child;
}

function startOurs(env: Env): ChildProcess {
  return startOurController(env, 'kubectl-gitops-appsets.log', [
    '--no-applications',
    '--enable-progressive-syncs',
  ]);
}

const stopping = new WeakSet<ChildProcess>();

async function stop(child: ChildProcess): Promise<void> {
  stopping.add(child);
  await stopProcess(child, 15_000);
}

export async function runAppSets(env: Env, cases: readonly Case[]): Promise<CaseOutcome[]> {
  const outcomes = new Map<string, CaseOutcome>(
    cases.map((c) => [
      c.id,
      { id: c.id, name: c.name, family: c.family, phases: ['appsets'], rows: [], notRun: [], notes: [] },
    ]),
  );
  const notesBySet = new Map<string, string[]>();
  for (const c of cases)
    for (const side of ['a', 'o'] as const) notesBySet.set(sideName(c, side), outcomes.get(c.id)!.notes);
  const rig = env.mode === 'rig' && !!env.argocd;
  const sides: Side[] = rig ? ['a', 'o'] : ['o'];
  const seen = new Map<string, { sets: Map<string, Obj>; apps: Map<string, Obj[]> }>();
  const shas = new Map<string, string>();
  try {
    for (const c of cases)
      for (const side of sides) {
        const v = values(env, c, side);
        shas.set(v.ns, await makeRepo(env.gitRoot, v.ns, fill(c.repo, v)));
        for (const e of await env.kubectl.create([
          { apiVersion: 'v1', kind: 'Namespace', metadata: { name: v.ns } },
        ]))
          outcomes.get(c.id)!.notes.push(`set-up: ${e}`);
      }
    for (const side of sides) {
      const names = cases.map((c) => sideName(c, side));
      for (const c of cases)
        for (const e of await env.kubectl.create([sideSet(env, c, side)]))
          outcomes.get(c.id)!.notes.push(`set-up: ${e}`);
      const child = side === 'a' ? await startArgoAppsets(env) : startOurs(env);
      child.once('exit', (code) => {
        if (!stopping.has(child))
          for (const c of cases)
            outcomes
              .get(c.id)!
              .notes.push(`appsets: side ${side}'s controller exited (${code}) early: see ${LOGS}`);
      });
      try {
        const sets = await waitSettled(env, names, notesBySet);
        seen.set(side, { sets, apps: await readApps(env, names) });
      } finally {
        await stop(child);
      }
    }
  } finally {
    for (const side of sides) {
      const names = cases.map((c) => sideName(c, side));
      await env.kubectl.run([
        'delete',
        'applicationsets',
        '-n',
        env.argocdNs,
        '--ignore-not-found',
        '--wait=false',
        ...names,
      ]);
    }
    await sleep(2_000);
    for (const c of cases)
      for (const side of sides)
        rmSync(join(env.gitRoot, `${sideName(c, side)}.git`), { recursive: true, force: true });
    for (const side of sides)
      await env.kubectl.run([
        'delete',
        'namespace',
        '--ignore-not-found',
        '--wait=false',
        ...cases.map((c) => sideName(c, side)),
      ]);
  }
  for (const c of cases) {
    const out = outcomes.get(c.id)!;
    const view = (side: Side): Obj | undefined => {
      const s = seen.get(side);
      const name = sideName(c, side);
      const tokens = new Map([[name, `${c.id}-X`]]);
      const sha = shas.get(name);
      if (sha) tokens.set(sha, '<rev:main>');
      return replaceTokens(appsetView(s?.sets.get(name), s?.apps.get(name) ?? []), tokens);
    };
    out.rows.push(...compareFields(c.id, 'appsets', '', rig ? view('a') : undefined, view('o')));
    if (!rig) out.notRun.push('appsets: Argo CD side needs the rig');
  }
  return [...outcomes.values()];
}
