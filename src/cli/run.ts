/**
 * Process entry point shared by the production bundle (bin/kubectl-gitops -> dist/cli.js) and the
 * development launcher (bin/dev.js, TypeScript via tsx). oclif finds the commands through the explicit
 * discovery target named in package.json ("oclif.commands"), so it never scans the file system.
 */
// First: it sets the help width before @oclif/core reads it.
import './columns.js';
import { flush, run as oclifRun, type Interfaces } from '@oclif/core';
import { installHelpLayout } from './help-layout.js';
import { ExitCode } from '../common/index.js';
import { exitCodeOf, formatError, type Vocabulary } from './handle-error.js';
import { installInterruptHandlers, interruptHandledByCommand, interruptSignal } from '../common/index.js';

/**
 * Runs one command line and returns the exit code; never throws. `load` is the package root (oclif reads
 * package.json and the manifest there) or a ready oclif Config (the standalone executable builds its own).
 */
export async function main(argv: string[], load: string | Interfaces.LoadOptions): Promise<number> {
  installInterruptHandlers();
  installHelpLayout();
  try {
    await oclifRun(argv, load);
    await flush();
    const interrupted = interruptSignal.aborted && !interruptHandledByCommand();
    return interrupted ? ExitCode.INTERRUPTED : Number(process.exitCode ?? 0);
  } catch (err) {
    const code = interruptSignal.aborted ? ExitCode.INTERRUPTED : exitCodeOf(err);
    // oclif's own exit (this.exit(n)) carries code EEXIT and prints nothing.
    if ((err as { code?: string })?.code !== 'EEXIT') {
      const commandId = argv.find((a) => !a.startsWith('-'));
      const vocabulary = await vocabularyOf(commandId);
      for (const line of formatError(err, argv, commandId, vocabulary)) process.stderr.write(`${line}\n`);
    }
    return code;
  }
}

/** Command names and the failing command's long flags, for "did you mean" (loaded only on errors). */
async function vocabularyOf(commandId: string | undefined): Promise<Vocabulary | undefined> {
  try {
    const { COMMANDS } = await import('../commands/index.js');
    const commands = Object.keys(COMMANDS);
    const command = (COMMANDS as Record<string, unknown>)[commandId ?? ''] as
      { flags?: Record<string, { aliases?: string[] }>; baseFlags?: Record<string, unknown> } | undefined;
    if (!command) return { commands };
    const flags = Object.entries({ ...command.baseFlags, ...command.flags }).flatMap(([name, f]) => [
      name,
      ...((f as { aliases?: string[] }).aliases ?? []),
    ]);
    return { commands, flags };
  } catch {
    return undefined;
  }
}
