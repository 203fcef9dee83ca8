/**
 * How a command's run ends: the one place that turns what a run came to into an exit code and into the
 * error the launcher renders (src/cli/handle-error.ts `formatError`, the one error renderer). Every command
 * that runs apps (diff, diff --base, sync, render) calls `concludeRun`; none picks a code or writes an
 * error line itself.
 *
 * Exit code (README "Errors and exit codes"), the first rule that applies:
 *  1. interrupted (Ctrl-C, SIGTERM): 130;
 *  2. any error the run had of its own (an app, file or tree node that failed; not one the `--timeout`
 *     abort caused, which is "interrupted", 130): 2, or the error's own code when higher, so an outage is
 *     never read as "did not finish in time";
 *  3. `--timeout` passed: 1, as `argocd app sync` exits when its operation does not succeed in time;
 *  4. an operation did not end as asked (sync): not Succeeded; or, not a dry run, Degraded, or not Healthy
 *     when health is required (sync --health): 1;
 *  5. differences found and asked for (diff --exit-code): 1;
 *  6. otherwise 0.
 * Rules 1-3 end the run with a `RunFailure` (thrown): every error of the run, in order, is one line; the
 * last (with its hint) is the failure's own, the ones before it are `earlier`. Nothing is dropped: a run
 * interrupted or timed out still shows the errors it had.
 */
import { ExitCode, GitopsError, oneLine } from './errors.js';

/** One error of a run as reports carry it (the controller's `AppReport.error`), or as thrown. */
export type RunError = { message: string; exitCode: number; hint?: string | undefined } | Error;

/** One app's sync operation as the exit code sees it (absent `phase`: no operation ran). */
export interface OperationOutcome {
  phase?: string | undefined;
  dryRun?: boolean | undefined;
  /** The app's health after the operation. */
  health?: string | undefined;
}

export interface RunOutcome {
  /** The command, for the messages of a run stopped with no error of its own ("sync interrupted"). */
  command: string;
  errors: readonly RunError[];
  interrupted?: boolean;
  /** Set when the `--timeout` deadline ended the run: the flag's value as given. */
  timedOut?: string | undefined;
  /** With `timedOut`: what the run was still waiting for, one entry per app (added to the timeout's line). */
  waitedFor?: readonly string[] | undefined;
  /** sync: one per app (apps with an error are judged by rule 3). */
  operations?: readonly OperationOutcome[];
  /** sync --health: an app must end Healthy (Progressing fails). */
  requireHealthy?: boolean;
  /** diff --exit-code: differences were found (undefined or false: not asked, or none). */
  differences?: boolean;
}

/** A run that failed: the last error (this one's message, hint and exit code) and the ones before it. */
export class RunFailure extends GitopsError {
  /** One line each, in the order they happened, rendered before this error's own line. */
  readonly earlier: readonly string[];
  /** The error as thrown (or made from its report): the renderer reads its hints there. */
  readonly last: GitopsError;

  constructor(last: GitopsError, earlier: readonly string[], exitCode: number) {
    super(last.message, { exitCode, ...(last.hint ? { hint: last.hint } : {}), cause: last });
    this.name = 'RunFailure';
    this.earlier = earlier;
    this.last = last;
  }
}

function lineOf(e: RunError): string {
  return e instanceof Error ? oneLine(e) : e.message;
}

function errorOf(e: RunError, command: string): GitopsError {
  if (e instanceof GitopsError) return e;
  if (e instanceof Error)
    return new GitopsError(`failed to ${command}: ${oneLine(e)}`, { subject: command, cause: e });
  return new GitopsError(e.message, { exitCode: e.exitCode, ...(e.hint ? { hint: e.hint } : {}) });
}

function operationFailed(op: OperationOutcome, requireHealthy: boolean): boolean {
  if (op.phase !== 'Succeeded') return true;
  if (op.dryRun) return false;
  return op.health === 'Degraded' || (requireHealthy && op.health !== 'Healthy');
}

/** The exit code of a run (the rules above). */
export function exitCodeOfRun(o: RunOutcome): number {
  if (o.interrupted) return ExitCode.INTERRUPTED;
  const codeOf = (e: RunError): number =>
    e instanceof GitopsError || !(e instanceof Error) ? e.exitCode : ExitCode.FAILURE;
  // Errors the timeout's abort caused (apps it stopped: "interrupted") are not the run's own.
  const own =
    o.timedOut !== undefined ? o.errors.filter((e) => codeOf(e) !== ExitCode.INTERRUPTED) : o.errors;
  const last = own.at(-1);
  if (last) return Math.max(ExitCode.USAGE, codeOf(last));
  if (o.timedOut !== undefined) return ExitCode.OPERATION_FAILED;
  if (o.operations?.some((op) => operationFailed(op, o.requireHealthy ?? false)))
    return ExitCode.OPERATION_FAILED;
  if (o.differences) return ExitCode.DIFFERENCES;
  return ExitCode.OK;
}

/**
 * Ends a run: throws a `RunFailure` when it was interrupted, timed out or had errors (rules 1-3); else
 * returns its exit code (0 or 1) for `process.exitCode`.
 */
export function concludeRun(o: RunOutcome): number {
  const code = exitCodeOfRun(o);
  const lines = o.errors.map(lineOf);
  if (o.timedOut !== undefined && !o.interrupted) {
    const waited = o.waitedFor?.length ? `, still waiting for ${o.waitedFor.join('; ')}` : '';
    const last = new GitopsError(`failed to ${o.command}: timeout ${o.timedOut} passed${waited}`, {
      exitCode: code,
    });
    throw new RunFailure(last, lines, code);
  }
  const last = o.errors.at(-1);
  if (last) throw new RunFailure(errorOf(last, o.command), lines.slice(0, -1), code);
  if (o.interrupted)
    throw new RunFailure(new GitopsError(`${o.command} interrupted`, { exitCode: code }), [], code);
  return code;
}
