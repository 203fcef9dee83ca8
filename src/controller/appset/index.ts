/**
 * The ApplicationSet controller (door of `src/controller/appset/`): Argo CD's ApplicationSet controller
 * in this process, run by `kubectl gitops controller` beside the application controller
 * (docs/appset-controller.md).
 *
 * - `runAppSetController(options)` (controller.ts, types.ts): the watch, the work queue and its workers.
 * - reconcile.ts: one ApplicationSet's reconcile (generate, validate, create / update / delete the
 *   Applications, status); apply.ts: one Application's write; conditions.ts and status.ts: the status;
 *   progressive.ts: RollingSync progressive syncs.
 * Imports no other room.
 */
export { runAppSetController, appSetChanged, applicationChanged } from './controller.js';
export { reconcileAppSet } from './reconcile.js';
export { effectivePolicy, destinationError } from './validate.js';
export { APPLICATIONSET_RESOURCE } from './status.js';
export type { AppSetControllerOptions, AppSetEvent, AppsSyncPolicy } from './types.js';
