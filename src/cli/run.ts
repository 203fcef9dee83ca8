/**
 * Process entry point shared by the production bundle (bin/kubectl-gitops -> dist/cli.js) and the
 * development launcher (bin/dev.js, TypeScript via tsx). oclif finds the commands through the explicit
 * discovery target named in package.json ("oclif.commands"), so it never scans the file system.
 */
import { flush, run as oclifRun } from '@oclif/core';
import { ExitCode } from './errors.js';
import { exitCodeOf, formatError } from './handle-error.js';

export async function main(argv: string[], root: string): Promise<number> {
  let interrupted = false;
  const onSignal = () => {
    // A second Ctrl-C exits at once; the first lets the running command abort cleanly via its signal.
    if (interrupted) process.exit(ExitCode.INTERRUPTED);
    interrupted = true;
    process.exitCode = ExitCode.INTERRUPTED;
  };
  process.once('SIGINT', onSignal);
  try {
    await oclifRun(argv, root);
    await flush();
    return interrupted ? ExitCode.INTERRUPTED : (Number(process.exitCode ?? 0) as number);
  } catch (err) {
    const code = exitCodeOf(err);
    // oclif's own exit (this.exit(n)) carries code EEXIT and prints nothing.
    if ((err as { code?: string })?.code !== 'EEXIT') {
      const commandId = argv.find((a) => !a.startsWith('-'));
      for (const line of formatError(err, argv, commandId)) process.stderr.write(`${line}\n`);
    }
    return code;
  }
}
