/**
 * Operations cases (`operations`, phase `operations`; docs/conformance.md "Operations"): each case's
 * steps (sync, rollback, terminate, push, delete) are run on Argo CD's Application `<id>-a` while Argo
 * CD's application controller runs, then on ours `<id>-o` while `kubectl gitops controller` runs (the
 * two controllers both watch Argo CD's namespace: one side after the other, Argo CD's controller stopped
 * meanwhile), and what each controller leaves is compared field by field.
 *
 * 1. Set-up: per case and side a repository (one commit), the destination namespace, the case's Argo CD
 *    objects; leftovers of an earlier run removed first.
 * 2. Argo CD's side: every `<id>-a` is created and waited for (Argo CD's first reconcile), then each case
 *    runs its steps in order (cases side by side). A step writes what Argo CD's CLI or API server writes
 *    (`operation` as `argocd app sync` / `app rollback` write it; `status.operationState.phase:
 *    Terminating` as `argocd app terminate-op`), then waits (`until`): the operation ended (`operation`
 *    cleared and a final phase), a hook running, a retry's backoff, or the Application gone.
 * 3. Argo CD's Applications left are removed (finalizers dropped first), its controller stopped; the
 *    `<id>-o` twins are created and our controller runs the same steps; then it gets SIGTERM, its
 *    Applications are removed and Argo CD's controller started again.
 * 4. Compared per case: the app after the first reconcile (sync status, finalizers), after each step
 *    (`operationState`: phase, message, operation, syncResult; conditions; finalizers; gone or not), at
 *    the end (sync, health, `history`), and the side's writes in the audit log from its app's creation to
 *    its last step (Applications' own writes left out, as in the sync phase).
 * Without the rig our side runs alone on the embedded server and only our values are recorded.
 */
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { CaseOutcome } from './batch.js';
import { fill, sideApp, sideName, type Case, type Obj, type Side, type SideValues } from './case.js';
import type { Env } from './env.js';
import { makeRepo, pushCommit } from './git.js';
import { compareFields, replaceTokens } from './normalise.js';
import { AppPoller, ended, hookRunning, retrying, stepOperation } from './operations-steps.js';
import { operationsView, stepWrites } from './operations-view.js';
import { startOurController, stopProcess } from './processes.js';
import { auditWrites } from './views.js';

const READY_MS = 120_000;
const STEP_MS = 150_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface SideRun {
  values: SideValues;
  /** The main repository's commits, first to last. */
  shas: string[];
  /** Views in order: `ready`, then one per step (push steps have none), then `final`. */
  views: [string, Obj][];
  /** Where each step's writes start in the audit log (`ready`: the app's creation), then `end`. */
  marks: [string, number][];
  /** The writes of each step (and of `ready`), as compared. */
  writes: Obj;
  notes: string[];
}

async function runSteps(env: Env, poll: AppPoller, c: Case, side: Side, run: SideRun): Promise<void> {
  const name = sideName(c, side);
  const k = env.kubectl;
  for (const [i, step] of (c.operations ?? []).entries()) {
    const label = `${i}.${step.op}`;
    if (step.op !== 'push') run.marks.push([label, auditSize(env)]);
    if (step.op === 'push') {
      run.shas.push(await pushCommit(env.gitRoot, name, fill(step.files ?? {}, run.values), `step ${i}`));
      continue;
    }
    let until: (a: Obj | undefined) => boolean = ended;
    if (step.op === 'delete') {
      await k.run(['delete', 'applications.argoproj.io', '-n', env.argocdNs, name, '--wait=false']);
      until = (a) => !a;
    } else if (step.op === 'terminate') {
      await k.merge(`applications.argoproj.io/${name}`, env.argocdNs, {
        status: { operationState: { phase: 'Terminating' } },
      });
    } else {
      await poll.refresh();
      const op = stepOperation(fill(step, run.values), poll.get(name), run.shas);
      await k.merge(`applications.argoproj.io/${name}`, env.argocdNs, { operation: op });
      if (step.until === 'hookRunning') until = hookRunning;
      if (step.until === 'retrying') until = retrying;
    }
    // A running hook or a retry's backoff is read once the app has been quiet for 2 s (Argo CD persists
    // each pass; the first write of a hook's state is not yet its health's message).
    const r = await poll.wait(name, until, STEP_MS, until === ended || step.op === 'delete' ? 0 : 2_000);
    if (r.timedOut)
      run.notes.push(
        `operations: ${name} step ${label} did not reach ${step.until ?? 'its end'} in ${STEP_MS / 1000} s`,
      );
    run.views.push([label, operationsView(r.app, step.op === 'delete' ? 'delete' : 'step')]);
  }
  // The refresh that follows the last operation (reconciledAt at or after its end), unless the app is gone.
  const r = await poll.wait(
    name,
    (a) => {
      if (!a) return true;
      const fin = a.status?.operationState?.finishedAt as string | undefined;
      return !a.operation && (!fin || String(a.status?.reconciledAt ?? '') >= fin);
    },
    30_000,
  );
  await sleep(1_500);
  await poll.refresh();
  run.marks.push(['end', auditSize(env)]);
  run.views.push(['final', operationsView(r.timedOut ? r.app : poll.get(name), 'final')]);
}

/** Removes Applications without running their finalizers (the runner's clean-up, not a case's delete). */
async function removeApps(env: Env, names: string[]): Promise<void> {
  const k = env.kubectl;
  for (const n of names) {
    const at = ['applications.argoproj.io', '-n', env.argocdNs, n];
    await k.run(['patch', ...at, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
  }
  if (names.length)
    await k.run([
      'delete',
      'applications.argoproj.io',
      '-n',
      env.argocdNs,
      '--ignore-not-found',
      '--wait=true',
      '--timeout=60s',
      ...names,
    ]);
}

function auditSize(env: Env): number {
  try {
    return env.auditLog ? statSync(env.auditLog).size : 0;
  } catch {
    return 0;
  }
}

async function runSide(
  env: Env,
  cases: readonly Case[],
  side: Side,
  runs: Map<string, SideRun>,
): Promise<void> {
  const poll = new AppPoller(env);
  for (const c of cases) runs.get(c.id)!.marks.push(['ready', auditSize(env)]);
  const apps = cases.map((c) => sideApp(c, runs.get(c.id)!.values));
  for (const e of await env.kubectl.create(apps))
    for (const c of cases) if (e.includes(sideName(c, side))) runs.get(c.id)!.notes.push(`set-up: ${e}`);
  const ours =
    side === 'o'
      ? startOurController(env, 'kubectl-gitops-operations.log', ['--no-applicationsets', '--force-takeover'])
      : undefined;
  try {
    await Promise.all(
      cases.map(async (c) => {
        const run = runs.get(c.id)!;
        const name = sideName(c, side);
        const r = await poll.wait(
          name,
          (a) => Boolean(a?.status?.reconciledAt && a.status.sync?.status),
          READY_MS,
        );
        if (r.timedOut) run.notes.push(`operations: ${name} not reconciled in ${READY_MS / 1000} s`);
        await sleep(2_000); // a finalizer or status patch following the first reconcile
        await poll.refresh();
        run.views.push(['ready', operationsView(poll.get(name), 'ready')]);
        try {
          await runSteps(env, poll, c, side, run);
        } catch (e) {
          run.notes.push(`operations: ${name}: ${(e as Error).message}`);
        }
      }),
    );
  } finally {
    if (ours) await stopProcess(ours, 20_000);
  }
  if (env.auditLog) {
    const buf = readFileSync(env.auditLog);
    for (const c of cases) {
      const run = runs.get(c.id)!;
      run.marks.forEach(([label, from], i) => {
        const to = run.marks[i + 1]?.[1];
        if (to === undefined) return;
        // Offsets snapped back to a line start (a line being written at the mark belongs to the later step).
        const start = buf.lastIndexOf(10, from - 1) + 1;
        const end = buf.lastIndexOf(10, to - 1) + 1;
        const lines = buf.subarray(start, end).toString('utf8').split('\n');
        const all = auditWrites(lines, env.auditUser!, sideName(c, side)).filter((w) => !w.dryRun);
        const kept = stepWrites(all, (what) => run.notes.push(`operations: side ${side} ${label}: ${what}`));
        run.writes[label] = kept;
      });
    }
  }
  await removeApps(
    env,
    cases.map((c) => sideName(c, side)),
  );
}

export async function runOperations(env: Env, cases: readonly Case[]): Promise<CaseOutcome[]> {
  const rig = env.mode === 'rig';
  const sides: Side[] = rig ? ['a', 'o'] : ['o'];
  const outcomes = new Map<string, CaseOutcome>(
    cases.map((c) => [
      c.id,
      { id: c.id, name: c.name, family: c.family, phases: ['operations'], rows: [], notRun: [], notes: [] },
    ]),
  );
  const bySide = new Map<Side, Map<string, SideRun>>();
  const k = env.kubectl;
  const all = cases.flatMap((c) => sides.map((s) => sideName(c, s)));
  await removeApps(env, all);
  await k.run(['delete', 'namespace', '--ignore-not-found', '--wait=true', '--timeout=120s', ...all]);
  try {
    for (const side of sides) {
      const runs = new Map<string, SideRun>();
      for (const c of cases) {
        const ns = sideName(c, side);
        const values: SideValues = {
          ns,
          argocdNs: env.argocdNs,
          repoUrl: () => `${env.gitBaseUrl}/${ns}.git`,
        };
        const run: SideRun = {
          values,
          shas: [],
          views: [],
          marks: [],
          writes: {},
          notes: outcomes.get(c.id)!.notes,
        };
        run.shas.push(await makeRepo(env.gitRoot, ns, fill(c.repo, values)));
        const objs = [
          ...(c.createNamespace ? [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }] : []),
          ...c.argocd.map((o) => fill(o, values)),
        ];
        for (const e of await k.create(objs)) run.notes.push(`set-up: ${e}`);
        runs.set(c.id, run);
      }
      bySide.set(side, runs);
      if (side === 'o' && rig) await env.controller('stop');
      try {
        await runSide(env, cases, side, runs);
      } finally {
        if (side === 'o' && rig) await env.controller('start');
      }
    }
  } finally {
    await removeApps(env, all);
    await k.run(['delete', 'namespace', '--ignore-not-found', '--wait=false', ...all]);
    for (const n of all) rmSync(join(env.gitRoot, `${n}.git`), { recursive: true, force: true });
  }
  for (const c of cases) {
    const out = outcomes.get(c.id)!;
    const view = (side: Side): Obj | undefined => {
      const run = bySide.get(side)?.get(c.id);
      if (!run) return undefined;
      const tokens = new Map([[sideName(c, side), `${c.id}-X`]]);
      run.shas.forEach((sha, i) => tokens.set(sha, `<rev:${i + 1}>`));
      return replaceTokens({ ...Object.fromEntries(run.views), writes: run.writes }, tokens);
    };
    out.rows.push(...compareFields(c.id, 'operations', '', rig ? view('a') : undefined, view('o')));
    if (!rig) out.notRun.push('operations: Argo CD side needs the rig');
  }
  return [...outcomes.values()];
}
