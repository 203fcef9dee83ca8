/**
 * One resource's health, in Argo CD's order (gitops-engine `GetResourceHealth`):
 * 1. `metadata.deletionTimestamp` set and no `argocd.argoproj.io/hook-finalizer`: Progressing
 *    "Pending deletion", for every kind (also kinds with no check).
 * 2. The kind's check from `KIND_CHECKS` (group + kind). An unsupported version, or a field of the wrong
 *    type, gives Unknown with the error text; so does any other error a check throws.
 * 3. No check: the opt-in conditions fallback, else `undefined` (no health at all; never Unknown).
 * User Lua overrides (argocd-cm) are not supported.
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
  if (isDeleting(obj) && !hasHookFinalizer(obj)) {
    return { status: 'Progressing', message: 'Pending deletion' };
  }
  const input: CheckInput = {
    obj,
    ...parseApiVersion(obj['apiVersion']),
    kind: typeof obj['kind'] === 'string' ? obj['kind'] : '',
  };
  const entry = findKindCheck(input.group, input.kind);
  const enabled = entry && (entry.option === undefined || options[entry.option] === true);
  if (entry && enabled) {
    if (entry.versions && !entry.versions.includes(input.version)) {
      return {
        status: 'Unknown',
        message: `unsupported ${entry.label ?? entry.kind} GVK: ${gvkString(input)}`,
      };
    }
    return guarded(() => entry.check(input), conversionPrefix(entry));
  }
  if (options.conditionsFallback === true) return guarded(() => conditionsHealth(input), '');
  return undefined;
}

function guarded(run: () => HealthResult | undefined, prefix: string): HealthResult | undefined {
  try {
    return run();
  } catch (err) {
    // A check's own errors (CheckError) carry the whole message; SchemaError gets Argo CD's prefix.
    const message = err instanceof Error ? err.message : String(err);
    return { status: 'Unknown', message: err instanceof SchemaError ? prefix + message : message };
  }
}
