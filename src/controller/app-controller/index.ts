/**
 * The application controller (door of `src/controller/app-controller/`): `kubectl gitops controller`
 * (docs/controller.md).
 *
 * - `runController(options)` (run.ts, types.ts): the loop (src/controller/loop) fed by the live Argo CD
 *   namespace's Applications (apps.ts), their requested operations (operations.ts) and the clusters of
 *   this controller's shards (shards.ts).
 * - `StatusWriter` (status-writer.ts): the loop's results written back into each Application.
 * - `AppFinalizer` (finalizer.ts): a deleted app's resources removed before its finalizer.
 * Imports the loop (through its door) and the refresh room only.
 */
export { runController, defaultOperation } from './run.js';
export type {
  ControllerBase,
  ControllerEvent,
  ControllerRunOptions,
  ControllerSharding,
  ControllerSummary,
} from './run.js';
export { StatusWriter, REFRESH_ANNOTATION } from './status-writer.js';
export type { StatusWriterOptions } from './status-writer.js';
export { AppFinalizer, FinalizerQueue } from './finalizer.js';
export type { AppFinalizerOptions } from './finalizer.js';
export { ControllerShards } from './shards.js';
export { RequestedOperations, syncAppOf } from './operations.js';
