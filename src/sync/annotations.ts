/**
 * The annotations and sync options sync reads, and how their values are parsed
 * (gitops-engine pkg/sync/common/types.go, pkg/sync/syncwaves/waves.go, pkg/sync/hook/*.go,
 * pkg/sync/hook/helm/*.go). Unknown hook or policy names are ignored, as Argo CD ignores them.
 */
import { HOOK_FINALIZER, hookTypes, isHook, isSkip } from '../health/index.js';
import type { Unstructured } from '../health/index.js';
import type { KubeObject } from '../common/index.js';
import type { HookDeletePolicy, HookType } from './types.js';

export const SYNC_WAVE_ANNOTATION = 'argocd.argoproj.io/sync-wave';
export const HOOK_DELETE_POLICY_ANNOTATION = 'argocd.argoproj.io/hook-delete-policy';
export const SYNC_OPTIONS_ANNOTATION = 'argocd.argoproj.io/sync-options';
export { HOOK_FINALIZER };
export const HELM_HOOK_WEIGHT_ANNOTATION = 'helm.sh/hook-weight';
export const HELM_HOOK_DELETE_POLICY_ANNOTATION = 'helm.sh/hook-delete-policy';

const DELETE_POLICIES: readonly HookDeletePolicy[] = ['HookSucceeded', 'HookFailed', 'BeforeHookCreation'];

const HELM_DELETE_POLICIES: Readonly<Record<string, HookDeletePolicy>> = {
  'before-hook-creation': 'BeforeHookCreation',
  'hook-succeeded': 'HookSucceeded',
  'hook-failed': 'HookFailed',
};

function annotation(obj: KubeObject | undefined, key: string): string | undefined {
  return obj?.metadata?.annotations?.[key];
}

function csv(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** The hook types of an object (health's detection: Argo CD's annotation wins over Helm's); [] = no hook. */
export function hookTypesOf(obj: KubeObject): HookType[] {
  return hookTypes(obj as Unstructured) as HookType[];
}

/** True when the object is a hook; `Skip` alone is no hook (never applied, never pruned). */
export function isHookObject(obj: KubeObject): boolean {
  return isHook(obj as Unstructured);
}

/** True when the object is `hook: Skip` alone. */
export function isSkipped(obj: KubeObject): boolean {
  return isSkip(obj as Unstructured);
}

/** Delete policies of a hook; `BeforeHookCreation` when none is written. */
export function deletePolicies(obj: KubeObject): HookDeletePolicy[] {
  const argo = csv(annotation(obj, HOOK_DELETE_POLICY_ANNOTATION)).filter((p): p is HookDeletePolicy =>
    DELETE_POLICIES.includes(p as HookDeletePolicy),
  );
  const helm = csv(annotation(obj, HELM_HOOK_DELETE_POLICY_ANNOTATION))
    .map((p) => HELM_DELETE_POLICIES[p])
    .filter((p): p is HookDeletePolicy => p !== undefined);
  const all = [...new Set([...argo, ...helm])];
  return all.length > 0 ? all : ['BeforeHookCreation'];
}

/** Integer strings only ("1", "-3"), as Go's strconv.Atoi accepts them. */
function parseWave(value: string | undefined): number | undefined {
  if (value === undefined || !/^[+-]?\d+$/.test(value.trim())) return undefined;
  return Number.parseInt(value.trim(), 10);
}

/** The sync wave: the Argo CD annotation, else Helm's hook weight, else 0 (unparsable values fall through). */
export function syncWave(obj: KubeObject): number {
  return (
    parseWave(annotation(obj, SYNC_WAVE_ANNOTATION)) ??
    parseWave(annotation(obj, HELM_HOOK_WEIGHT_ANNOTATION)) ??
    0
  );
}

/** `Key=Value` CSV into a map (a bare key reads as "true"); later entries win. */
export function parseSyncOptions(entries: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of entries.flatMap((e) => csv(e))) {
    const eq = entry.indexOf('=');
    if (eq < 0) out[entry] = 'true';
    else out[entry.slice(0, eq).trim()] = entry.slice(eq + 1).trim();
  }
  return out;
}

/**
 * The app's or an operation's sync options as Argo CD's controller reads them: without `Force`. Argo CD
 * takes force from the sync strategy (`argocd app sync --force`: controller/sync.go
 * `WithOperationSettings(..., syncOp.SyncStrategy.Force(), ...)`) and from the resource's annotation
 * (gitops-engine sync_context.go `applyObject`); `Force=true` among `spec.syncPolicy.syncOptions` or an
 * operation's `syncOptions` does nothing there (measured against Argo CD 3.6.1, conformance c083). In a
 * request, `Force` is the strategy's force.
 */
export function withoutForce(options: Readonly<Record<string, string>>): Record<string, string> {
  const { Force: _ignored, ...rest } = options;
  return rest;
}

/** The sync options of one object: the app's options overlaid by the object's annotation. */
export function objectSyncOptions(obj: KubeObject | undefined, app: Readonly<Record<string, string>>) {
  return { ...app, ...parseSyncOptions(csv(annotation(obj, SYNC_OPTIONS_ANNOTATION))) };
}

/** True when option `key` is set to `value` (case-insensitive value, as Argo CD compares them). */
export function hasOption(options: Readonly<Record<string, string>>, key: string, value = 'true'): boolean {
  return options[key]?.toLowerCase() === value.toLowerCase();
}
