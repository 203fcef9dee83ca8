// Over 400 lines: one algorithm, Argo CD's progressive_sync.go (steps, statuses, maxUpdate, conditions), whose steps share the status entries.
/**
 * Progressive syncs (`strategy.type: RollingSync`), Argo CD's alpha feature, as its ApplicationSet
 * controller runs them with `--enable-progressive-syncs` (argo-cd `applicationset/progressivesync/
 * progressive_sync.go`, `validation_issues.go`). Pure: the reconciler (reconcile.ts) reads and writes.
 *
 * - Steps (`rollingSync.steps[i].matchExpressions`, operators In / NotIn on the Applications' labels; a
 *   missing label fails In and passes NotIn): each generated app lands in the first step that selects it
 *   (buildAppDependencyList); an app in two steps, a step selecting nothing, a bad operator or a bad
 *   maxUpdate make InvalidRolloutConfig True with Argo CD's message.
 * - `status.applicationStatus` per existing app (application, message, status, step, targetRevisions,
 *   lastTransitionTime): new -> Waiting; revisions or spec changed (the spec compared with auto-sync
 *   disabled) -> Waiting; Waiting + Synced -> Healthy or Progressing; Pending + an operation started after
 *   the Pending transition (and reconciledAt after it) -> Progressing, or Progressing on an
 *   InvalidSpecError / UnknownError condition; Progressing + Healthy and Synced -> Healthy.
 * - Apps to sync: every step up to the first whose apps are not all existing and Healthy
 *   (getAppsToSync); Waiting apps of those steps move to Pending within `maxUpdate` (an int or a percent
 *   of the step's apps, rounded down, at least 1 unless "0%") counting the step's Pending and Progressing.
 * - The generated apps all get `syncPolicy.automated.enabled: false`; an app allowed to sync whose status
 *   was Pending when the reconcile began gets an `operation` (initiatedBy applicationset-controller,
 *   automated; Reason info; retry: the app's or limit 5; syncOptions and prune from its policy).
 * - RolloutProgressing: True "ApplicationSet is performing rollout of step N" (reason
 *   ApplicationSetModified) for the first incomplete step, else False "ApplicationSet Rollout has
 *   completed" (ApplicationSetRolloutComplete).
 */
import type { AppSetCondition } from './conditions.js';
import { COND, REASON } from './conditions.js';

type Json = Record<string, unknown>;
const isMap = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface AppStatusEntry {
  application: string;
  message: string;
  status: 'Waiting' | 'Pending' | 'Progressing' | 'Healthy' | string;
  step: string;
  targetRevisions: string[];
  lastTransitionTime?: string | undefined;
}

export interface Issues {
  invalidOps: { step: number; op: string }[];
  duplicates: Map<string, number[]>;
  emptySteps: number[];
  invalidMaxUpdates: { step: number; value: string }[];
}

const strategyOf = (appset: Json): Json | undefined => {
  const spec = appset['spec'];
  return isMap(spec) && isMap(spec['strategy']) ? spec['strategy'] : undefined;
};

/** IsRollingSyncStrategy. */
export function isRollingSync(appset: Json): boolean {
  const s = strategyOf(appset);
  return s?.['type'] === 'RollingSync' && isMap(s['rollingSync']);
}

export function stepsOf(appset: Json): Json[] {
  const s = strategyOf(appset);
  const rs = s && isMap(s['rollingSync']) ? s['rollingSync'] : undefined;
  return rs && Array.isArray(rs['steps']) ? rs['steps'].filter(isMap) : [];
}

const labelsOf = (app: Json): Record<string, string> =>
  (isMap(app['metadata']) && isMap(app['metadata']['labels']) ? app['metadata']['labels'] : {}) as Record<
    string,
    string
  >;
const nameOf = (app: Json): string => String((app['metadata'] as Json | undefined)?.['name'] ?? '');

/** buildAppDependencyList: the apps of each step, each app's first step (0-based), and the issues. */
export function buildSteps(
  appset: Json,
  apps: readonly Json[],
): { steps: string[][]; stepOf: Map<string, number>; issues: Issues } {
  const issues: Issues = { invalidOps: [], duplicates: new Map(), emptySteps: [], invalidMaxUpdates: [] };
  const steps = isRollingSync(appset) ? stepsOf(appset) : [];
  const list: string[][] = steps.map(() => []);
  const stepOf = new Map<string, number>();
  for (const app of apps) {
    const name = nameOf(app);
    const labels = labelsOf(app);
    steps.forEach((step, i) => {
      let selected = true;
      for (const raw of Array.isArray(step['matchExpressions']) ? step['matchExpressions'] : []) {
        const e = isMap(raw) ? raw : {};
        const key = String(e['key'] ?? '');
        const op = String(e['operator'] ?? '');
        const values = Array.isArray(e['values']) ? e['values'].map(String) : [];
        if (key in labels) {
          if (op !== 'In' && op !== 'NotIn') {
            if (!issues.invalidOps.some((x) => x.step === i && x.op === op)) {
              issues.invalidOps.push({ step: i, op });
              selected = false;
              break;
            }
            selected = false;
            break;
          }
          const has = values.includes(labels[key]!);
          if (op === 'In' ? !has : has) {
            selected = false;
            break;
          }
        } else if (op === 'In') {
          selected = false;
          break;
        }
      }
      if (!selected) return;
      list[i]!.push(name);
      const first = stepOf.get(name);
      if (first !== undefined) {
        const d = issues.duplicates.get(name) ?? [first];
        d.push(i);
        issues.duplicates.set(name, d);
      } else stepOf.set(name, i);
    });
  }
  list.forEach((apps, i) => {
    if (apps.length === 0) issues.emptySteps.push(i);
  });
  return { steps: list, stepOf, issues };
}

/** getAppStep: 1-based, -1 when no step selects the app. */
export const stepNumber = (name: string, stepOf: ReadonlyMap<string, number>): number => {
  const s = stepOf.get(name);
  return s === undefined ? -1 : s + 1;
};

/** ApplicationStatus.GetRevisions. */
export function revisionsOf(app: Json): string[] {
  const status = isMap(app['status']) ? app['status'] : {};
  const sync = isMap(status['sync']) ? status['sync'] : {};
  if (Array.isArray(sync['revisions']) && sync['revisions'].length > 0) return sync['revisions'].map(String);
  return typeof sync['revision'] === 'string' && sync['revision'] ? [sync['revision']] : [];
}

const after = (a: string | undefined, b: string | undefined): boolean =>
  a !== undefined && b !== undefined && Date.parse(a) > Date.parse(b);

/** UpdateApplicationSetApplicationStatus: each existing app's entry from its state and the previous entry. */
export function updateAppStatuses(
  previous: readonly AppStatusEntry[],
  apps: readonly Json[],
  stepOf: ReadonlyMap<string, number>,
  specChanged: (name: string) => boolean,
  now: string,
): AppStatusEntry[] {
  return apps.map((app) => {
    const name = nameOf(app);
    const status = isMap(app['status']) ? app['status'] : {};
    const health = String((status['health'] as Json | undefined)?.['status'] ?? '');
    const sync = String((status['sync'] as Json | undefined)?.['status'] ?? '');
    const revisions = revisionsOf(app);
    const current: AppStatusEntry = previous.find((p) => p.application === name) ?? {
      application: name,
      targetRevisions: revisions,
      lastTransitionTime: now,
      message: 'No Application status found, defaulting status to Waiting',
      status: 'Waiting',
      step: String(stepNumber(name, stepOf)),
    };
    const next: AppStatusEntry = { ...current, step: String(stepNumber(name, stepOf)) };
    const revChanged = JSON.stringify(current.targetRevisions ?? []) !== JSON.stringify(revisions);
    const spec = specChanged(name);
    if (revChanged || spec) {
      next.targetRevisions = revisions;
      next.message =
        revChanged && spec
          ? 'Application has pending changes (revision and spec differ), setting status to Waiting'
          : revChanged
            ? 'Application has pending changes, setting status to Waiting'
            : 'Application has pending changes (spec differs), setting status to Waiting';
      next.status = 'Waiting';
      next.lastTransitionTime = now;
    }
    if (next.status === 'Waiting') {
      if (sync === 'Synced') {
        next.lastTransitionTime = now;
        if (health === 'Healthy') {
          next.status = 'Healthy';
          next.message = 'Application resource has synced, updating status to Healthy';
        } else {
          next.status = 'Progressing';
          next.message = 'Application resource has synced, updating status to Progressing';
        }
      }
    } else {
      if (current.status === 'Pending') {
        const reconciledAt = typeof status['reconciledAt'] === 'string' ? status['reconciledAt'] : undefined;
        if (reconciledAt === undefined || after(reconciledAt, next.lastTransitionTime)) {
          const op = isMap(status['operationState']) ? status['operationState'] : undefined;
          const conds = Array.isArray(status['conditions']) ? status['conditions'].filter(isMap) : [];
          if (op && after(String(op['startedAt'] ?? ''), current.lastTransitionTime)) {
            const phase = String(op['phase'] ?? '');
            next.lastTransitionTime = now;
            next.status = 'Progressing';
            next.message =
              phase === 'Succeeded'
                ? 'Application resource completed a sync successfully, updating status from Pending to Progressing'
                : phase === 'Failed' || phase === 'Error'
                  ? 'Application resource completed a sync, updating status from Pending to Progressing'
                  : 'Application resource became Progressing, updating status from Pending to Progressing';
          } else if (conds.some((c) => c['type'] === 'InvalidSpecError' || c['type'] === 'UnknownError')) {
            next.lastTransitionTime = now;
            next.status = 'Progressing';
            next.message = 'Application resource has error and cannot sync, updating status to Progressing';
          }
        }
      }
      if (current.status === 'Progressing' && health === 'Healthy' && sync === 'Synced') {
        next.lastTransitionTime = now;
        next.status = 'Healthy';
        next.message = 'Application resource became Healthy, updating status from Progressing to Healthy';
      }
    }
    return next;
  });
}

/** getAppsToSync. */
export function appsToSync(
  statuses: readonly AppStatusEntry[],
  steps: readonly string[][],
  existing: ReadonlySet<string>,
): Set<string> {
  const out = new Set<string>();
  for (const step of steps) {
    for (const a of step) out.add(a);
    const done = step.every(
      (a) => existing.has(a) && statuses.find((s) => s.application === a)?.status === 'Healthy',
    );
    if (!done) break;
  }
  return out;
}

/** intstr.GetScaledValueFromIntOrPercent(maxUpdate, total, roundUp=false); an error string when invalid. */
function scaled(v: unknown, total: number): { value: number; percent: boolean; error?: string } {
  if (typeof v === 'number') return { value: v, percent: false };
  const s = String(v);
  const m = /^(-?\d+)%$/.exec(s);
  if (!m) return { value: 0, percent: true, error: `invalid value for IntOrString: invalid value "${s}"` };
  return { value: Math.floor((Number(m[1]) * total) / 100), percent: true };
}

/** UpdateApplicationSetApplicationStatusProgress: Waiting apps allowed to sync move to Pending within maxUpdate. */
export function progressStatuses(
  appset: Json,
  statuses: readonly AppStatusEntry[],
  toSync: ReadonlySet<string>,
  stepOf: ReadonlyMap<string, number>,
  issues: Issues,
  now: string,
): AppStatusEntry[] {
  const steps = stepsOf(appset);
  if (!isRollingSync(appset) || steps.length === 0) return [...statuses];
  const stepIdx = (a: string): number => stepOf.get(a) ?? 0;
  const updating = steps.map(() => 0);
  const total = steps.map(() => 0);
  for (const s of statuses) {
    total[stepIdx(s.application)]!++;
    if (s.status === 'Pending' || s.status === 'Progressing') updating[stepIdx(s.application)]!++;
  }
  return statuses.map((s) => {
    const i = stepIdx(s.application);
    const maxUpdate = steps[i]?.['maxUpdate'];
    let allowed = true;
    if (maxUpdate !== undefined && maxUpdate !== null) {
      const r = scaled(maxUpdate, total[i]!);
      if (r.error && !issues.invalidMaxUpdates.some((x) => x.step === i))
        issues.invalidMaxUpdates.push({ step: i, value: String(maxUpdate) });
      let value = r.value;
      if (typeof maxUpdate === 'string' && maxUpdate !== '0%' && value < 1) value = 1;
      if (updating[i]! >= value) allowed = false;
    }
    if (s.status === 'Waiting' && toSync.has(s.application) && allowed) {
      updating[i]!++;
      return {
        ...s,
        lastTransitionTime: now,
        status: 'Pending',
        message:
          'Application moved to Pending status, watching for the Application resource to start Progressing',
      };
    }
    return s;
  });
}

/** getProgressingCondition. */
export function progressingCondition(appset: Json, statuses: readonly AppStatusEntry[]): AppSetCondition {
  const completed = new Map<string, boolean>();
  for (const s of statuses) {
    const v = completed.get(s.step);
    completed.set(s.step, (v ?? true) && s.status === 'Healthy');
  }
  const steps = stepsOf(appset);
  for (let i = 0; i < steps.length; i++) {
    const done = completed.get(String(i + 1));
    if (done === false)
      return {
        type: COND.RolloutProgressing,
        status: 'True',
        message: `ApplicationSet is performing rollout of step ${i + 1}`,
        reason: REASON.ApplicationSetModified,
      };
  }
  return {
    type: COND.RolloutProgressing,
    status: 'False',
    message: 'ApplicationSet Rollout has completed',
    reason: REASON.ApplicationSetRolloutComplete,
  };
}

function issuesMessage(v: Issues): string {
  if (v.invalidOps.length > 0) {
    const steps = v.invalidOps.map((x) => String(x.step + 1));
    const ops = v.invalidOps.map((x) => x.op).join(', ');
    return steps.length === 1
      ? `Step ${steps[0]} has invalid matchExpression operators: ${ops}. Supported Operators are 'In' and 'NotIn'`
      : `Steps ${steps.join(', ')} have invalid matchExpression operators: ${ops}. Supported Operators are 'In' and 'NotIn'`;
  }
  if (v.duplicates.size > 0) {
    const names = [...v.duplicates.keys()].sort();
    const steps = names.map((n) =>
      v.duplicates
        .get(n)!
        .map((s) => String(s + 1))
        .join('-'),
    );
    return names.length === 1
      ? `Application '${names[0]}' is selected by multiple steps: (${steps.join(', ')})`
      : `Applications '${names.join("', '")}' are selected by multiple steps: [(${steps.join('), (')})]`;
  }
  if (v.invalidMaxUpdates.length > 0) {
    const steps = v.invalidMaxUpdates.map((x) => String(x.step + 1)).join(', ');
    const values = v.invalidMaxUpdates.map((x) => x.value).join(', ');
    return v.invalidMaxUpdates.length === 1
      ? `Step ${steps} has an invalid maxUpdate value: ${values}`
      : `Steps ${steps} have invalid maxUpdate values: [${values}]`;
  }
  return `Steps [${v.emptySteps.map((s) => String(s + 1)).join(' ')}] have no applications matching their criteria`;
}

/** getInvalidRolloutConfig. */
export function rolloutConfigCondition(issues: Issues): AppSetCondition {
  const has =
    issues.invalidOps.length > 0 ||
    issues.duplicates.size > 0 ||
    issues.emptySteps.length > 0 ||
    issues.invalidMaxUpdates.length > 0;
  return has
    ? {
        type: COND.InvalidRolloutConfig,
        status: 'True',
        reason: REASON.InvalidRolloutConfig,
        message: issuesMessage(issues),
      }
    : {
        type: COND.InvalidRolloutConfig,
        status: 'False',
        message: 'Rolling Sync Configured correctly',
        reason: REASON.ValidRolloutConfig,
      };
}

/** disableAutomatedSync: `automated.enabled: false` where the app has an automated policy. */
export function disableAutomatedSync(app: Json): void {
  const spec = isMap(app['spec']) ? app['spec'] : undefined;
  const sp = spec && isMap(spec['syncPolicy']) ? spec['syncPolicy'] : undefined;
  if (sp && isMap(sp['automated'])) sp['automated'] = { ...sp['automated'], enabled: false };
}

/**
 * SyncDesiredApplications: auto-sync disabled on every generated app; an operation on those allowed to
 * sync whose entry was Pending (`pendingAtStart`: the statuses as the reconcile began).
 */
export function syncDesiredApplications(
  apps: Json[],
  toSync: ReadonlySet<string>,
  pendingAtStart: readonly AppStatusEntry[],
): void {
  for (const app of apps) {
    const spec = isMap(app['spec']) ? app['spec'] : {};
    const sp = isMap(spec['syncPolicy']) ? spec['syncPolicy'] : undefined;
    const automated = sp && isMap(sp['automated']) ? sp['automated'] : undefined;
    const autoEnabled = automated !== undefined && automated['enabled'] !== false;
    const prune = autoEnabled && automated?.['prune'] === true;
    disableAutomatedSync(app);
    const name = nameOf(app);
    const pending = pendingAtStart.find((s) => s.application === name)?.status === 'Pending';
    if (!toSync.has(name) || !pending) continue;
    const sync: Json = {};
    if (sp && Array.isArray(sp['syncOptions'])) sync['syncOptions'] = sp['syncOptions'];
    if (sp && prune) sync['prune'] = true;
    app['operation'] = {
      initiatedBy: { username: 'applicationset-controller', automated: true },
      info: [
        { name: 'Reason', value: 'ApplicationSet RollingSync triggered a sync of this Application resource' },
      ],
      sync,
      retry: sp && isMap(sp['retry']) ? sp['retry'] : { limit: 5 },
    };
  }
}
