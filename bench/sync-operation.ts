/**
 * The operation `kubectl gitops sync` runs with its default flags (hook strategy, no prune, no dry run),
 * for benches that drive a `Run` with a sync: one copy, so they measure the same thing.
 */
import type { RunOptions } from '../src/controller/index.js';
import { runOperation } from '../src/sync/index.js';

export const defaultSyncOperation: NonNullable<RunOptions['operation']> = (app, rec, signal) =>
  runOperation(
    { name: app.name, syncOptions: app.syncPolicy.options },
    rec,
    { prune: false, dryRun: false, allowEmpty: false, strategy: 'hook', resources: [], syncOptions: {} },
    signal,
  );
