/**
 * The continuous loop (door of `src/controller/loop/`): `sync --watch` and the application controller's
 * engine, never "done" (docs/loop.md).
 *
 * - `new Loop(options).run()` (loop.ts, options.ts): refresh and operation queues (workers.ts,
 *   process.ts), resync timers and per-app state (state.ts), live-cache triggers (live.ts), clusters kept
 *   for the loop's life (clusters.ts), behind the `ReconcileLoop` door (types.ts).
 * - Auto-sync and self-heal decisions (autosync.ts `decideAutoSync`).
 * - `watchApps` (watch-run.ts): `sync --watch`'s triggers (Git poller or `--local` watcher) around a loop.
 * Imports the refresh room only.
 */
export { Loop } from './loop.js';
export type { LoopOptions } from './options.js';
export { DEFAULT_APP_RESYNC_JITTER_MS, DEFAULT_APP_RESYNC_MS } from './options.js';
export { syncRequestOf } from './state.js';
export { watchApps } from './watch-run.js';
export type { WatchEvent, WatchRunOptions } from './watch-run.js';
export {
  decideAutoSync,
  DEFAULT_AUTOMATED_RETRY,
  DEFAULT_SELF_HEAL_BACKOFF,
  selfHealRemainingMs,
} from './autosync.js';
export type { AutoSyncDecision, AutoSyncInput, LastOperation, SelfHealBackoff } from './autosync.js';
export type * from './types.js';
