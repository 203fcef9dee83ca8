/**
 * Progress of a run on stderr, chosen once per command (`progressMode`) and fed by the run's typed events
 * (`RunEvent`: the controller's and sync's `onEvent` observers; engines never write to a terminal):
 *
 * - `tty`: stderr is a TTY: a listr2 display (progress-tty.ts) of what runs, erased when the run ends.
 * - `lines`: stderr is not a TTY and the command logs its steps (`sync`): one plain line per event
 *   (progress-lines.ts), for CI logs.
 * - `off`: `--quiet`, machine output on stdout (`-o json|yaml|name|markdown`), or stderr not a TTY for a
 *   command that only shows progress on a TTY (`diff`, `render`).
 * `-v 6` (request logs) turns the TTY display into plain lines (`sync`) or off: each log line stays whole.
 * Warnings go through `warn`: with the TTY display they are held and printed, in order, once it is gone,
 * so they are never drawn over.
 */
import type { RunEvent } from '../controller/index.js';
import { ProgressLines } from './progress-lines.js';
import type { ProgressStream } from './progress-tty.js';

export type ProgressMode = 'tty' | 'lines' | 'off';

export type ProgressCommand = 'diff' | 'sync' | 'render';

export interface ProgressChoice {
  command: ProgressCommand;
  /** The stream progress is drawn on (process.stderr). */
  stream: { isTTY?: boolean };
  /** stdout carries a machine-readable document (`-o json` and the like). */
  machineOutput: boolean;
  quiet: boolean;
  /** `-v` level: 6 or more logs every API request to stderr. */
  verbosity?: number;
}

export function progressMode(c: ProgressChoice): ProgressMode {
  if (c.quiet || c.machineOutput) return 'off';
  const logsRequests = (c.verbosity ?? 0) >= 6;
  if (c.stream.isTTY === true && !logsRequests) return 'tty';
  return c.command === 'sync' ? 'lines' : 'off';
}

export interface Progress {
  readonly mode: ProgressMode;
  /** The observer to give the run (`RunOptions.onEvent`, `SyncRequest.onEvent`). */
  readonly onEvent: (event: RunEvent) => void;
  /** Prints `warning: <message>` without breaking the display. */
  warn(message: string): void;
  /** Ends the display; resolves once stderr is the command's again. Idempotent. */
  stop(): Promise<void>;
}

/** The progress of one run; the TTY display (listr2) is loaded only when it is used. */
export async function createProgress(
  mode: ProgressMode,
  command: ProgressCommand,
  stream: ProgressStream = process.stderr,
): Promise<Progress> {
  const write = (line: string): void => {
    stream.write(`${line}\n`);
  };
  if (mode === 'lines') {
    const lines = new ProgressLines();
    return {
      mode,
      onEvent: (e) => {
        for (const line of lines.lines(e)) write(line);
      },
      warn: (m) => write(`warning: ${m}`),
      stop: () => Promise.resolve(),
    };
  }
  if (mode === 'tty') {
    const { TtyProgress } = await import('./progress-tty.js');
    const display = new TtyProgress(stream, command);
    const held: string[] = [];
    let stopped: Promise<void> | undefined;
    return {
      mode,
      onEvent: (e) => display.onEvent(e),
      warn: (m) => {
        if (stopped) write(`warning: ${m}`);
        else held.push(`warning: ${m}`);
      },
      stop: () =>
        (stopped ??= display.stop().then(() => {
          for (const line of held.splice(0)) write(line);
        })),
    };
  }
  return {
    mode,
    onEvent: () => undefined,
    warn: (m) => write(`warning: ${m}`),
    stop: () => Promise.resolve(),
  };
}
