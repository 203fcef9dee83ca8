/**
 * Ctrl-C (SIGINT) and SIGTERM for the whole process. The first signal aborts `interruptSignal` so engines
 * that wait (queues, watches, child processes) stop cleanly and the command still prints what happened;
 * if the command has not finished within the grace period, or on a second signal, the process exits 130.
 */
import { ExitCode } from './errors.js';

const controller = new AbortController();
let installed = false;

/** Aborted on the first SIGINT/SIGTERM. Pass it to everything that waits. */
export const interruptSignal: AbortSignal = controller.signal;

export function installInterruptHandlers(graceMs = 3000): void {
  if (installed) return;
  installed = true;
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(ExitCode.INTERRUPTED);
    process.exitCode = ExitCode.INTERRUPTED;
    controller.abort(new Error(`interrupted (${signal})`));
    setTimeout(() => {
      process.stderr.write('error: interrupted\n');
      process.exit(ExitCode.INTERRUPTED);
    }, graceMs).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
