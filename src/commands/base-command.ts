/**
 * Base class of every command: the flags all commands share and the error path.
 * Commands stay thin (design.md practice 10): parse flags, call an engine module, print the typed result.
 */
import { Command, Flags } from '@oclif/core';
import {
  concludeRun,
  ExitCode,
  installInterruptHandlers,
  interruptSignal,
  setClientVersion,
  setVerbosity,
  verbosity,
} from '../common/index.js';
import type { RunOutcome } from '../common/index.js';
import { createProgress, progressMode } from '../output/progress.js';
import type { Progress, ProgressCommand } from '../output/progress.js';

export abstract class BaseCommand extends Command {
  #progress: Progress | undefined;

  static override baseFlags = {
    debug: Flags.boolean({
      description: 'Print stack traces and debug details on errors.',
      helpGroup: 'GLOBAL',
    }),
    'no-color': Flags.boolean({
      description:
        'Disable colours (also NO_COLOR set non-empty). Colours are used on a TTY, or anywhere with FORCE_COLOR=1.',
      helpGroup: 'GLOBAL',
    }),
    v: Flags.integer({
      char: 'v',
      description:
        'Log level, as kubectl -v: 6 or more logs each API request (method, URL, status, time) to stderr; bodies are never logged.',
      min: 0,
      helpValue: 'N',
      helpGroup: 'GLOBAL',
    }),
  };

  override async init(): Promise<void> {
    await super.init();
    // Read before run() so every request of the command is logged; parse errors surface here as in run().
    const { flags } = await this.parse(this.ctor);
    setVerbosity((flags as { v?: number }).v ?? 0);
    // Every request to a cluster carries `kubectl-gitops/<version> (<os>/<arch>)` (src/common/user-agent.ts).
    setClientVersion(this.config.version);
  }

  /** Aborted on Ctrl-C/SIGTERM: pass it to every engine call that waits. */
  protected get signal(): AbortSignal {
    // Idempotent; main() installs them too, but a command run in-process (tests) still gets its signal.
    installInterruptHandlers();
    return interruptSignal;
  }

  /** Writes text to stdout without oclif's formatting (printers build whole documents). */
  protected write(text: string): void {
    process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  /**
   * Information for the user (where a server listens): a plain line on stderr, no prefix. `warning:` is
   * kept for what the user should act on (`warnLine`).
   */
  protected infoLine(text: string): void {
    process.stderr.write(`${text}\n`);
  }

  /** Warnings go to stderr so machine-readable stdout stays clean (through the progress display, if any). */
  protected warnLine(text: string): void {
    if (this.#progress) this.#progress.warn(text);
    else process.stderr.write(`warning: ${text}\n`);
  }

  /**
   * Starts the progress display of a run on stderr (src/output/progress.ts decides: a TTY display, plain
   * lines, or nothing). Pass its `onEvent` to the run; call `stopProgress` before printing the report.
   */
  protected async startProgress(
    command: ProgressCommand,
    options: { machineOutput: boolean; quiet: boolean },
  ): Promise<Progress> {
    const mode = progressMode({ command, stream: process.stderr, verbosity: verbosity(), ...options });
    this.#progress = await createProgress(mode, command);
    return this.#progress;
  }

  /** Ends the progress display (idempotent); held warnings are printed then. */
  protected async stopProgress(): Promise<void> {
    const progress = this.#progress;
    this.#progress = undefined;
    await progress?.stop();
  }

  /**
   * Ends a run by what it came to (src/common/outcome.ts, the one place exit codes are decided): throws
   * the run's failure for the launcher to render, or sets the exit code (1: differences, failed operation).
   */
  protected conclude(outcome: RunOutcome): void {
    const code = concludeRun(outcome);
    if (code !== ExitCode.OK) process.exitCode = code;
  }

  // Errors are rendered by the launcher (src/cli/run.ts), which knows about --debug and exit codes.
  protected override async catch(err: Error & { exitCode?: number }): Promise<unknown> {
    throw err;
  }
}
