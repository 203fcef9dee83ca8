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
 *    A case with `appsetSteps` (case.ts) runs them after that first settle, each side while its controller
 *    runs: the step's writes for every case at once, then a wait (the refresh annotation removed by the
 *    controller, or what is compared changed), then the same comparison again (fields `step<N>.*`).
 * 5. Clean-up: the sets deleted (the garbage collector deletes their Applications), then the namespaces,
 *    the cases' `argocd` objects (cluster Secrets; created per side before its controller starts and
 *    deleted after it stopped, so a side sees only its own) and the repositories.
 * A set has settled when it has a ParametersGenerated condition and either ErrorOccurred True or
 * ResourcesUpToDate True (with a RollingSync strategy: also RolloutProgressing False), and its
 * resourceVersion has not moved for 3 s; at most `SETTLE_MS`. Without the rig, our side runs alone on the
 * embedded server and only our values are recorded.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { CaseOutcome } from './batch.js';
import { fill, sideName, type AppSetStep, type Case, type Obj, type Side, type SideValues } from './case.js';
import type { Env } from './env.js';
import { makeRepo, pushCommit } from './git.js';
import { compareFields, keyed, normaliseTimes, replaceTokens } from './normalise.js';
import { omitEmpty } from './views.js';
import { fakeScmApi, type FakeScmApi, type ScmData } from '../../test/support/scm-api.js';
import { LOGS, logFile, startOurController, stopProcess } from './processes.js';

const SETTLE_MS = 120_000;
const REFRESH = 'argocd.argoproj.io/application-set-refresh';
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

/**
 * The fake SCM API of each case with `scm` (started by runAppSets, one per case, both sides) and the data
 * it answers from, which each side starts with the case's and a step may replace.
 */
const scmApis = new Map<Case, FakeScmApi>();
const scmData = new Map<Case, Obj>();

/** A PEM of test/fixtures/clusters (the fake SCM API's HTTPS certificate, its CA). */
const fixturePem = (file: string): string =>
  readFileSync(new URL(`../../test/fixtures/clusters/${file}`, import.meta.url), 'utf8');

function setScmData(c: Case, data: Obj): void {
  const live = scmData.get(c);
  if (!live) return;
  for (const k of Object.keys(live)) delete live[k];
  Object.assign(live, structuredClone(data));
}

function values(env: Env, c: Case, side: Side): SideValues {
  const ns = sideName(c, side);
  const scm = scmApis.get(c);
  return {
    ns,
    argocdNs: env.argocdNs,
    repoUrl: () => `${env.gitBaseUrl}/${ns}.git`,
    ...(scm ? { scmApi: scm.url } : {}),
  };
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

/** The generated Applications of the named sets (controller owner, or none and the set's name as prefix), by set. */
async function readApps(env: Env, names: string[]): Promise<Map<string, Obj[]>> {
  const list = await env.kubectl.getJson(['applications', '-n', env.argocdNs]);
  const out = new Map<string, Obj[]>(names.map((n) => [n, []]));
  for (const a of (list?.items ?? []) as Obj[]) {
    const owner = ((a.metadata?.ownerReferences ?? []) as Obj[]).find(
      (r) => r.controller && r.kind === 'ApplicationSet',
    );
    if (owner) {
      if (out.has(owner.name)) out.get(owner.name)!.push(a);
      continue;
    }
    // Given up by its set (a deleted set whose policy does not delete): found by the name it carries.
    const name = String(a.metadata?.name ?? '');
    const set = names.find((n) => name.startsWith(`${n}-`));
    if (set) out.get(set)!.push(a);
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

/** A case's Argo CD objects (cluster Secrets) for one side, in Argo CD's namespace unless they say. */
function sideArgoObjects(env: Env, c: Case, side: Side, objs: readonly Obj[]): Obj[] {
  return objs.map((o) => {
    const x = fill(structuredClone(o), values(env, c, side));
    return { ...x, metadata: { ...(x.metadata ?? {}), namespace: x.metadata?.namespace ?? env.argocdNs } };
  });
}

/** Runs one step of one case on one side (the header of AppSetStep says in which order). */
async function applyStep(env: Env, c: Case, side: Side, step: AppSetStep, shas: string[]): Promise<string[]> {
  const v = values(env, c, side);
  const errors: string[] = [];
  const must = async (args: string[], input?: string): Promise<void> => {
    const r = await env.kubectl.run(args, input);
    if (r.code !== 0)
      errors.push(`kubectl ${args.slice(0, 2).join(' ')}: ${r.stderr.trim().split('\n').pop()}`);
  };
  if (step.argocd)
    await must(
      ['apply', '-f', '-'],
      JSON.stringify({ apiVersion: 'v1', kind: 'List', items: sideArgoObjects(env, c, side, step.argocd) }),
    );
  for (const ref of step.deleteArgocd ?? []) await must(['delete', '-n', env.argocdNs, fill(ref, v)]);
  if (step.scmData) setScmData(c, step.scmData);
  if (step.push) shas.push(await pushCommit(env.gitRoot, v.ns, fill(step.push, v), `step of ${v.ns}`));
  for (const [name, patch] of Object.entries(step.apps ?? {}))
    await must([
      'patch',
      'applications.argoproj.io',
      fill(name, v),
      '-n',
      env.argocdNs,
      '--type=merge',
      '-p',
      JSON.stringify(fill(patch, v)),
    ]);
  const setPatch = fill(structuredClone(step.patch ?? {}), v);
  if (step.refresh !== false)
    setPatch.metadata = {
      ...(setPatch.metadata ?? {}),
      annotations: { ...(setPatch.metadata?.annotations ?? {}), [REFRESH]: 'true' },
    };
  if (step.deleteSet)
    await must(['delete', 'applicationsets.argoproj.io', v.ns, '-n', env.argocdNs, '--wait=false']);
  else if (Object.keys(setPatch).length > 0)
    await must([
      'patch',
      'applicationsets.argoproj.io',
      v.ns,
      '-n',
      env.argocdNs,
      '--type=merge',
      '-p',
      JSON.stringify(setPatch),
    ]);
  return errors;
}

/**
 * Waits after a step: a set marked for refresh until the annotation is gone and it has settled; another
 * until what is compared differs from `before` (or its `waitSeconds`); then until nothing compared moved
 * for QUIET_MS.
 */
async function waitStep(
  env: Env,
  waits: Map<string, { refresh: boolean; before: string; limitMs: number }>,
  notes: Map<string, string[]>,
): Promise<{ sets: Map<string, Obj>; apps: Map<string, Obj[]> }> {
  const names = [...waits.keys()];
  const t0 = Date.now();
  const limit = Math.max(SETTLE_MS, ...[...waits.values()].map((w) => w.limitMs));
  let last = '';
  let quietSince = Date.now();
  const reported = new Set<string>();
  for (;;) {
    const sets = await readSets(env, names);
    const apps = await readApps(env, names);
    const views = names.map((n) => JSON.stringify(appsetView(sets.get(n), apps.get(n) ?? []) ?? null));
    const now = views.join('\n');
    if (now !== last) {
      last = now;
      quietSince = Date.now();
    }
    const done = names.every((n, i) => {
      const w = waits.get(n)!;
      const set = sets.get(n);
      if (w.refresh) return settled(set) && set?.metadata?.annotations?.[REFRESH] === undefined;
      if (views[i] !== w.before) return true;
      if (Date.now() - t0 < w.limitMs) return false;
      if (!reported.has(n)) {
        reported.add(n);
        notes.get(n)?.push(`appsets: ${n} did not change within ${w.limitMs / 1000} s of its step`);
      }
      return true;
    });
    if (done && Date.now() - quietSince >= QUIET_MS) return { sets, apps };
    if (Date.now() - t0 > limit) {
      for (const n of names)
        notes.get(n)?.push(`appsets: ${n} not settled within ${limit / 1000} s of its step`);
      return { sets, apps };
    }
    await sleep(500);
  }
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
  /** What each side left after its first settle (index 0) and after each step. */
  const seen = new Map<Side, { sets: Map<string, Obj>; apps: Map<string, Obj[]> }[]>();
  /** Each side repository's commits, first one first. */
  const shas = new Map<string, string[]>();
  const steps = Math.max(0, ...cases.map((c) => c.appsetSteps?.length ?? 0));
  try {
    for (const c of cases)
      if (c.scm) {
        scmData.set(c, structuredClone(c.scm.data));
        scmApis.set(
          c,
          await fakeScmApi(
            c.scm.token,
            scmData.get(c) as ScmData,
            2,
            c.scm.tls ? { cert: fixturePem('server.pem'), key: fixturePem('server-key.pem') } : undefined,
          ),
        );
      }
    for (const c of cases)
      for (const side of sides) {
        const v = values(env, c, side);
        shas.set(v.ns, [await makeRepo(env.gitRoot, v.ns, fill(c.repo, v))]);
        for (const e of await env.kubectl.create([
          { apiVersion: 'v1', kind: 'Namespace', metadata: { name: v.ns } },
        ]))
          outcomes.get(c.id)!.notes.push(`set-up: ${e}`);
      }
    for (const side of sides) {
      const names = cases.map((c) => sideName(c, side));
      for (const c of cases) if (c.scm) setScmData(c, c.scm.data);
      for (const c of cases)
        for (const e of await env.kubectl.create([
          ...sideArgoObjects(env, c, side, c.argocd),
          sideSet(env, c, side),
        ]))
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
        const snapshots = [{ sets, apps: await readApps(env, names) }];
        seen.set(side, snapshots);
        for (let i = 0; i < steps; i++) {
          const prev = snapshots.at(-1)!;
          const waits = new Map<string, { refresh: boolean; before: string; limitMs: number }>();
          for (const c of cases) {
            const step = c.appsetSteps?.[i];
            if (!step) continue;
            const n = sideName(c, side);
            const before = JSON.stringify(appsetView(prev.sets.get(n), prev.apps.get(n) ?? []) ?? null);
            for (const e of await applyStep(env, c, side, step, shas.get(n)!))
              outcomes.get(c.id)!.notes.push(`step ${i + 1}: ${e}`);
            waits.set(n, {
              refresh: step.refresh !== false,
              before,
              limitMs: (step.waitSeconds ?? 60) * 1000,
            });
          }
          snapshots.push(await waitStep(env, waits, notesBySet));
        }
      } finally {
        await stop(child);
      }
      // The cases' Argo CD objects, and those their steps applied, go before the other side starts.
      const argoObjects = cases.flatMap((c) =>
        sideArgoObjects(env, c, side, [
          ...c.argocd,
          ...(c.appsetSteps ?? []).flatMap((st) => st.argocd ?? []),
        ]),
      );
      if (argoObjects.length > 0)
        await env.kubectl.run(
          ['delete', '--ignore-not-found', '-f', '-'],
          JSON.stringify({ apiVersion: 'v1', kind: 'List', items: argoObjects }),
        );
    }
  } finally {
    for (const c of cases) {
      await scmApis.get(c)?.close();
      scmApis.delete(c);
    }
    for (const c of cases)
      if (c.appset?.metadata?.finalizers)
        for (const side of sides)
          await env.kubectl.run([
            'patch',
            'applicationsets.argoproj.io',
            sideName(c, side),
            '-n',
            env.argocdNs,
            '--type=merge',
            '-p',
            '{"metadata":{"finalizers":null}}',
          ]);
    for (const side of sides) {
      const names = cases.map((c) => sideName(c, side));
      // Applications a set gave up (no owner: the garbage collector leaves them).
      const orphans = [...(await readApps(env, names)).values()]
        .flat()
        .filter((a) => !(a.metadata?.ownerReferences ?? []).length)
        .map((a) => String(a.metadata?.name));
      if (orphans.length > 0)
        await env.kubectl.run([
          'delete',
          'applications.argoproj.io',
          '-n',
          env.argocdNs,
          '--wait=false',
          ...orphans,
        ]);
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
  // Every case's side names (a clusters generator without a selector sees the other cases' clusters too).
  const tokens = new Map<string, string>();
  for (const c of cases)
    for (const side of sides) {
      tokens.set(sideName(c, side), `${c.id}-X`);
      (shas.get(sideName(c, side)) ?? []).forEach((sha, i) =>
        tokens.set(sha, i === 0 ? '<rev:main>' : `<rev:${i + 1}>`),
      );
    }
  for (const c of cases) {
    const out = outcomes.get(c.id)!;
    const view = (side: Side, i: number): Obj | undefined => {
      const s = seen.get(side)?.[i];
      const name = sideName(c, side);
      return replaceTokens(appsetView(s?.sets.get(name), s?.apps.get(name) ?? []), tokens);
    };
    for (let i = 0; i <= (c.appsetSteps?.length ?? 0); i++)
      out.rows.push(
        ...compareFields(
          c.id,
          'appsets',
          i === 0 ? '' : `step${i}`,
          rig ? view('a', i) : undefined,
          view('o', i),
        ),
      );
    if (!rig) out.notRun.push('appsets: Argo CD side needs the rig');
  }
  return [...outcomes.values()];
}
