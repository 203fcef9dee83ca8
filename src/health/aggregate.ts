/**
 * Application health from its managed resources, as Argo CD's `controller/health.go` aggregates it.
 *
 * Per resource, in input order:
 * - skipped entirely (no health, does not count as a resource): a target marked `hook: Skip`; a live hook;
 *   a live object the engine ignores (hook annotation with no engine hook type, e.g. Helm `test`);
 * - counts as a resource, but its health is not assessed: live annotated
 *   `argocd.argoproj.io/ignore-healthcheck: "true"`, and the Application that manages itself (`options.app`);
 * - live absent: Missing, shown per resource but never worsens the app (OutOfSync already says it);
 * - live present: `getResourceHealth(live)` (a failed check also sets `error`); no health adds nothing; a child `argoproj.io/Application`
 *   that is Missing or Unknown is ignored; anything else worsens the app when worse (`isWorse`).
 * The app starts Healthy; if it counts resources but none of them is live, it is Missing.
 * Causes: the live, assessed resources whose status is the app's final status (when it is not Healthy),
 * in input order; `message` is their summary ("Caused by batch/Job:default/failed-job").
 */
import { ANNOTATION_IGNORE_HEALTHCHECK, annotation, isHook, isIgnored, isSkip } from './annotations.js';
import { assessHealth } from './assess.js';
import {
  HEALTH_ORDER,
  type HealthOptions,
  type HealthResult,
  type HealthStatus,
  type Unstructured,
} from './types.js';

/** Argo CD's `IsWorse(current, candidate)`: is `candidate` worse than `current`? */
export function isWorse(current: HealthStatus, candidate: HealthStatus): boolean {
  return HEALTH_ORDER.indexOf(candidate) > HEALTH_ORDER.indexOf(current);
}

export interface ResourceRef {
  group: string;
  kind: string;
  /** Empty or absent for cluster-scoped resources. */
  namespace?: string | undefined;
  name: string;
}

/** One (target, live) pair of the comparison. At least one side is normally set. */
export interface ManagedResource extends ResourceRef {
  target?: Unstructured | null | undefined;
  live?: Unstructured | null | undefined;
}

export interface AggregateOptions {
  /** Passed to `getResourceHealth` for every live resource. */
  health?: HealthOptions | undefined;
  /** The Application being assessed: if it manages itself, its own object does not count. */
  app?: { name: string; namespace: string } | undefined;
}

export interface AppHealth {
  status: HealthStatus;
  /** The causes summary; absent when there are no causes. */
  message?: string;
  causes: ResourceRef[];
  /**
   * Aligned with the input: each resource's health, or undefined when it has none or was not assessed
   * (hooks, ignored, Skip, ignore-healthcheck, the app itself).
   */
  resources: (HealthResult | undefined)[];
  /**
   * The first check that failed (its resource is Unknown with the error), as Argo CD words it:
   * `failed to get resource health for "<Kind>" with name "<name>" in namespace "<ns>": <error>`. The
   * controller reports it as a ComparisonError condition "error setting app health: ...".
   */
  error?: string;
}

const MAX_CAUSES_SHOWN = 3;

/** "<group>/<Kind>:<namespace>/<name>", leaving out the core group and an empty namespace. */
export function formatResourceRef(ref: ResourceRef): string {
  return `${ref.group ? `${ref.group}/` : ''}${ref.kind}:${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`;
}

/** "Caused by A, B, C and 2 more"; '' for no causes. */
export function formatHealthCauses(causes: readonly ResourceRef[]): string {
  if (causes.length === 0) return '';
  const shown = causes.slice(0, MAX_CAUSES_SHOWN).map(formatResourceRef).join(', ');
  const more = causes.length - MAX_CAUSES_SHOWN;
  return `Caused by ${shown}${more > 0 ? ` and ${more} more` : ''}`;
}

function isApplication(ref: ResourceRef): boolean {
  return ref.group === 'argoproj.io' && ref.kind === 'Application';
}

export function aggregateHealth(
  resources: readonly ManagedResource[],
  options: AggregateOptions = {},
): AppHealth {
  let status: HealthStatus = 'Healthy';
  let containsResources = false;
  let containsLive = false;
  const perResource: (HealthResult | undefined)[] = resources.map(() => undefined);
  const counted: { ref: ManagedResource; health: HealthResult }[] = [];
  let firstError: string | undefined;

  resources.forEach((res, i) => {
    const live = res.live ?? undefined;
    if (res.target && isSkip(res.target)) return;
    if (live && (isHook(live) || isIgnored(live))) return;
    containsResources = true;
    if (live) containsLive = true;
    if (live && annotation(live, ANNOTATION_IGNORE_HEALTHCHECK) === 'true') return;
    if (!live) {
      perResource[i] = { status: 'Missing' };
      return;
    }
    const self = options.app;
    if (self && isApplication(res) && res.name === self.name && (res.namespace ?? '') === self.namespace)
      return;
    const assessed = assessHealth(live, options.health);
    if (assessed.error !== undefined && firstError === undefined) {
      const meta = (live['metadata'] ?? {}) as { name?: unknown; namespace?: unknown };
      firstError = `failed to get resource health for "${String(live['kind'] ?? '')}" with name "${String(meta.name ?? '')}" in namespace "${String(meta.namespace ?? '')}": ${assessed.error}`;
    }
    const health = assessed.health;
    if (!health) return;
    perResource[i] = health;
    if (isApplication(res) && (health.status === 'Missing' || health.status === 'Unknown')) return;
    counted.push({ ref: res, health });
    if (isWorse(status, health.status)) status = health.status;
  });

  if (containsResources && !containsLive && isWorse(status, 'Missing')) status = 'Missing';
  const causes: ResourceRef[] =
    status === 'Healthy'
      ? []
      : counted
          .filter((c) => c.health.status === status)
          .map(({ ref }) => ({ group: ref.group, kind: ref.kind, namespace: ref.namespace, name: ref.name }));
  const message = formatHealthCauses(causes);
  return {
    status,
    ...(message ? { message } : {}),
    causes,
    resources: perResource,
    ...(firstError !== undefined ? { error: firstError } : {}),
  };
}
