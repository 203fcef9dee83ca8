/**
 * One resource's health, in Argo CD's order (gitops-engine `GetResourceHealth`):
 * 1. `metadata.deletionTimestamp` set and no `argocd.argoproj.io/hook-finalizer`: Progressing
 *    "Pending deletion", for every kind (also kinds with no check).
 * 2. A user Lua check for the kind (`options.overrides`, lua.ts): its verdict, or no health when it gives
 *    none (the built-in check is not consulted); a failing script is Unknown with Lua's error.
 * 3. The kind's check from `KIND_CHECKS` (group + kind). An unsupported version, or a field of the wrong
 *    type, gives Unknown with the error text; so does any other error a check throws.
 * 4. No check: the opt-in conditions fallback, else `undefined` (no health at all; never Unknown).
 * `assessHealth` also returns the error text of an Unknown that came from an error (Argo CD's `err`), which
 * the app turns into a ComparisonError condition (aggregate.ts).
 */
import { hasHookFinalizer, isDeleting } from './annotations.js';
import { conditionsHealth } from './conditions.js';
import { SchemaError } from './fields.js';
import { conversionPrefix, findKindCheck } from './registry.js';
import type { CheckInput, HealthOptions, HealthResult, Unstructured } from './types.js';

/** Splits `apiVersion` into group and version (`v1` is the core group ''). */
function parseApiVersion(apiVersion: unknown): { group: string; version: string } {
  if (typeof apiVersion !== 'string') return { group: '', version: '' };
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** Go's `GroupVersionKind.String()`: "apps/v1beta2, Kind=Deployment", "/v1, Kind=Pod". */
function gvkString(input: CheckInput): string {
  return `${input.group}/${input.version}, Kind=${input.kind}`;
}

export function getResourceHealth(obj: Unstructured, options: HealthOptions = {}): HealthResult | undefined {
  return assessHealth(obj, options).health;
}

/** A resource's health and, when it is Unknown because a check failed, the error (Argo CD's `err`). */
export interface HealthAssessment {
  health?: HealthResult;
  error?: string;
}

export function assessHealth(obj: Unstructured, options: HealthOptions = {}): HealthAssessment {
  if (isDeleting(obj) && !hasHookFinalizer(obj)) {
    return { health: { status: 'Progressing', message: 'Pending deletion' } };
  }
  const input: CheckInput = {
    obj,
    ...parseApiVersion(obj['apiVersion']),
    kind: typeof obj['kind'] === 'string' ? obj['kind'] : '',
  };
  const override = options.overrides?.find(input.group, input.kind);
  if (override) {
    return guarded(() => options.overrides!.evaluate(override, obj), '');
  }
  const entry = findKindCheck(input.group, input.kind);
  const enabled = entry && (entry.option === undefined || options[entry.option] === true);
  if (entry && enabled) {
    if (entry.versions && !entry.versions.includes(input.version)) {
      const message = `unsupported ${entry.label ?? entry.kind} GVK: ${gvkString(input)}`;
      return { health: { status: 'Unknown', message }, error: message };
    }
    return guarded(() => entry.check(input), conversionPrefix(entry));
  }
  if (options.conditionsFallback === true) return guarded(() => conditionsHealth(input), '');
  return {};
}

function guarded(run: () => HealthResult | undefined, prefix: string): HealthAssessment {
  try {
    const health = run();
    return health ? { health } : {};
  } catch (err) {
    // A check's own errors (CheckError) carry the whole message; SchemaError gets Argo CD's prefix.
    const text = err instanceof Error ? err.message : String(err);
    const message = err instanceof SchemaError ? prefix + text : text;
    return { health: { status: 'Unknown', message }, error: message };
  }
}
