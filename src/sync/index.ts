/**
 * Sync: Argo CD's operation engine (gitops-engine pkg/sync) as a plan (pure) and an engine (impure).
 *
 * - plan.ts `planSync` turns the reconciliation's target/live pairs into the ordered task list: one task
 *   per (resource, phase), hooks named, waves, kind rank, Namespace/CRD hoisting, prune decisions, prune
 *   waves mirrored, PruneLast, CreateNamespace. Rules in docs/sync.md.
 * - order.ts holds the phase and kind-rank tables; annotations.ts the annotation and sync-option names.
 * - patch.ts computes client-side apply's three-way patch locally; an empty patch means no request.
 * - engine.ts runs a plan against a `SyncClient` as a resumable step machine whose outcomes are data.
 *   Its parts: engine-types.ts (the `SyncClient` contract, options, task state), validate.ts (permission
 *   and dry run before any write), groups.ts (one (phase, wave) group: prunes, earlier hooks, applies),
 *   hooks.ts (hook finalizers and deletion), waiting.ts (the waiting rule: never wait for an event a
 *   no-op step does not produce; re-evaluate from the live state).
 * - cluster-client.ts is the `SyncClient` of a real cluster: its writes per sync option; live-view.ts the
 *   waits on live state (our writes over the live cache, settled, Force=true's delete); requests.ts how
 *   one request is made (kind path, body, write options, retries).
 * - operation.ts runs one app's sync operation: plan, engine, cluster client, settle; terminate.ts what
 *   Argo CD's `Terminating` phase does to a running one.
 */
export * from './types.js';
export {
  SYNC_WAVE_ANNOTATION,
  SYNC_OPTIONS_ANNOTATION,
  HOOK_DELETE_POLICY_ANNOTATION,
  HOOK_FINALIZER,
  parseSyncOptions,
  deletePolicies,
  hasOption,
  syncWave,
  withoutForce,
} from './annotations.js';
export { KIND_ORDER, PHASE_ORDER, compareTasks, kindRank, sortTasks } from './order.js';
export { formatResourceKey, hookName, keyOfObject, parseResourceFilter, planSync } from './plan.js';
export type { PlanInput, PlanResource, ResourceFilter, SyncPlan } from './plan.js';
export { LAST_APPLIED_ANNOTATION, applyPatch, lastApplied, withLastApplied } from './patch.js';
export type { ApplyPatch, PatchType } from './patch.js';
export { SyncEngine } from './engine.js';
export { UnknownKindError, taskRef, unservedId } from './engine-types.js';
export type { EngineOptions, OperationResult, SyncClient, TaskState, Unserved } from './engine-types.js';
export { ClusterSyncClient } from './cluster-client.js';
export { SYNC_FIELD_MANAGER } from './requests.js';
export type { ClusterSyncClientOptions } from './cluster-client.js';
export { UnsettledOperationError, runOperation } from './operation.js';
export type { SyncApp, SyncRequest, SyncSource } from './operation.js';
export { OPERATION_TERMINATED, TERMINATION_HAD_ERRORS } from './terminate.js';
