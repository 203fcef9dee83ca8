/**
 * Entry of the standalone executable (Node's single executable application, `npm run package`).
 *
 * A SEA has no package directory: its main script is one CommonJS bundle whose `require` reaches only
 * Node's built-in modules. So instead of letting oclif read package.json and the commands module from
 * disk, this entry hands oclif the package.json and the command classes bundled in.
 */
import { dirname } from 'node:path';
import type { Interfaces } from '@oclif/core';
import { loadConfigWithInMemoryCommands } from './cli/bundled-commands.js';
import { main } from './cli/run.js';
// esbuild inlines the JSON: the SEA carries its own package.json.
import pjson from '../package.json' with { type: 'json' };

void (async () => {
  // The executable's folder stands in for the package root (oclif derives only paths from it).
  const config = await loadConfigWithInMemoryCommands({
    root: dirname(process.execPath),
    pjson: pjson as unknown as Interfaces.PJSON,
  });
  process.exitCode = await main(process.argv.slice(2), config);
})();
