/**
 * The common vocabulary: the door of `src/common/`, the bottom of the house (gitops-engine's
 * `pkg/sync/common` is the model). It imports nothing of ours and every module may import it.
 *
 * - Objects: `KubeObject` (a Kubernetes object as JSON), `Unstructured`, `Json`/`JsonMap`.
 * - Keys: `ResourceKey` (group/kind/namespace/name, "" for the core group and cluster scope), `keyOf`,
 *   `formatKey` ("group/kind/namespace/name"), `groupKind`, `parseApiVersion`, `apiVersionOf`.
 * - Names: tracking annotation/label and methods, Argo CD annotations, `SyncOption`/`CompareOption` values.
 * - Defaults: Argo CD namespace, tracking method, field manager, processor counts.
 * - Errors: `GitopsError` (message form "<subject>: failed to <verb>: <cause>", carries its exit code),
 *   `UsageError` (exit 2), `ExitCode` (the exit-code table as data), `oneLine`.
 * - How a run ends (outcome.ts): `concludeRun` (a run's outcome -> its exit code, or the `RunFailure`
 *   carrying every error of the run, thrown for the launcher to render), `exitCodeOfRun`.
 * - Time: `Clock`, `realClock`, `FakeClock` (tests step time instead of sleeping).
 * - User-Agent (user-agent.ts): `userAgent()` = `kubectl-gitops/<version> (<os>/<arch>)`, as kubectl's;
 *   `setClientVersion` (the command sets it once).
 * - Interrupts: `interruptSignal` (aborted on the first SIGINT/SIGTERM; pass it to everything that waits),
 *   `InterruptError`, `installInterruptHandlers`, `handleInterruptInCommand`.
 * - Signals (signals.ts): `linkedSignal` (AbortSignal.any without its Node 20 leak on long-lived sources)
 *   and `onAbort`; the links and waits on one source share one listener on it.
 */
export type { KubeObject, Unstructured, Json, JsonMap } from './object.js';
export { setIfAbsent } from './object.js';
export type { ResourceKey, GroupVersionKind } from './resource-key.js';
export { apiVersionOf, parseApiVersion, formatKey, keyOf, groupKind } from './resource-key.js';
export * from './names.js';
export { globMatch, globRegExp } from './glob.js';
export * from './defaults.js';
export { ExitCode, GitopsError, UsageError, oneLine } from './errors.js';
export { concludeRun, exitCodeOfRun, RunFailure } from './outcome.js';
export type { OperationOutcome, RunError, RunOutcome } from './outcome.js';
export type { ExitCodeValue, GitopsErrorOptions } from './errors.js';
export { FakeClock, realClock } from './clock.js';
export type { Clock, TimerHandle } from './clock.js';
export {
  InterruptError,
  interruptSignal,
  installInterruptHandlers,
  handleInterruptInCommand,
  interruptHandledByCommand,
} from './interrupt.js';
export { linkedSignal, onAbort } from './signals.js';
export type { LinkedSignal } from './signals.js';
export { REQUEST_LOG_LEVEL, setVerbosity, verbosity, logAt } from './verbosity.js';
export { setClientVersion, userAgent, goPlatform, USER_AGENT_PRODUCT } from './user-agent.js';
