/**
 * Health types shared by every file of `src/health/` (leaf module: imports nothing).
 * Names follow Argo CD's gitops-engine `pkg/health/health.go`.
 */

/** Argo CD's health codes. */
export type HealthStatus = 'Healthy' | 'Progressing' | 'Degraded' | 'Suspended' | 'Missing' | 'Unknown';

/** Best to worst, exactly Argo CD's `healthOrder`: the index is the severity. */
export const HEALTH_ORDER: readonly HealthStatus[] = [
  'Healthy',
  'Suspended',
  'Progressing',
  'Missing',
  'Degraded',
  'Unknown',
];

/** One resource's verdict. `message` is omitted when Argo CD's would be empty. */
export interface HealthResult {
  status: HealthStatus;
  message?: string;
}

/**
 * A Kubernetes object as plain JSON (what YAML/JSON parsing or the API returns). Any `KubeObject` fits.
 * Health never mutates it.
 */
export interface Unstructured {
  [key: string]: unknown;
}

/** A plain JSON object (a mapping). */
export type Obj = Record<string, unknown>;

/**
 * Options of `getResourceHealth`. Both default to off, which is Argo CD's behaviour out of the box
 * (and what the upstream vectors assert).
 */
export interface HealthOptions {
  /**
   * Assess `argoproj.io/Application` from its `status.health`, like the override Argo CD documents for
   * app-of-apps (`resource.customizations.health.argoproj.io_Application`). Off: an Application has no
   * health.
   */
  applicationHealth?: boolean | undefined;
  /**
   * For kinds with no built-in check, derive health from `status.conditions` (see `conditions.ts`).
   * Off: such kinds have no health, as in Argo CD.
   */
  conditionsFallback?: boolean | undefined;
  /**
   * User health checks (argocd-cm `resource.customizations.health.*`): a kind's Lua script runs instead
   * of the built-in check, as in Argo CD (overrides.ts `HealthOverrides`).
   */
  overrides?: UserHealthChecks | undefined;
}

/** One user health check of argocd-cm: its Lua script and whether it may use the standard libraries. */
export interface HealthOverride {
  script: string;
  useOpenLibs: boolean;
}

/** User health checks by kind (overrides.ts `HealthOverrides`): the one for a kind, and its verdict. */
export interface UserHealthChecks {
  find(group: string, kind: string): HealthOverride | undefined;
  evaluate(override: HealthOverride, obj: Unstructured): HealthResult | undefined;
}

/** A check's view of the object it judges: the object plus its parsed API version. */
export interface CheckInput {
  obj: Obj;
  group: string;
  version: string;
  kind: string;
}

/**
 * A per-kind check. It may throw `SchemaError` (from `fields.ts`) when a field it reads has the wrong type;
 * the caller turns that into Unknown. Returning `undefined` means "no health" (only the opt-in checks do).
 */
export type HealthCheck = (input: CheckInput) => HealthResult | undefined;
