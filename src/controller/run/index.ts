/**
 * The one-shot run (door of `src/controller/run/`): `diff`, `sync` and `render`'s engine.
 *
 * - `prepareRun(options)` (prepare.ts): cluster work started while the apps load (kubeconfig, connection).
 * - `new Run(options).run()` → `RunReport` (run.ts): selects the given apps, resolves their destinations
 *   and clusters (src/controller/refresh), runs `statusProcessors` refresh workers and, with an operation,
 *   `operationProcessors` operation workers (processors.ts), waits for health when asked (health-wait.ts),
 *   and stops when every app is final (or at `signal`).
 * Imports the refresh room only.
 */
export { Run } from './run.js';
export type { RunOptions } from './run.js';
export { prepareRun } from './prepare.js';
export type { PreparedRun, PrepareOptions } from './prepare.js';
