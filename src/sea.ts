/**
 * Entry of the standalone executable (Node's single executable application, `npm run package`).
 *
 * A SEA has no package directory: its main script is one CommonJS bundle whose `require` reaches only
 * Node's built-in modules. So instead of letting oclif read package.json, oclif.manifest.json and the
 * commands module from disk, this entry hands oclif the package.json and the command classes bundled in.
 */
import { dirname } from 'node:path';
import { Config, Plugin, type Interfaces } from '@oclif/core';
import { COMMANDS } from './commands/index.js';
import { main } from './cli/run.js';
// esbuild inlines the JSON: the SEA carries its own package.json.
import pjson from '../package.json' with { type: 'json' };

type PluginInternals = {
  isRoot: boolean;
  commandCache?: unknown;
  loadCommandsFromTarget(): Promise<unknown>;
};

const loadFromTarget = Plugin.prototype['loadCommandsFromTarget' as keyof Plugin] as unknown as (
  this: PluginInternals,
) => Promise<unknown>;
// The root plugin's commands are the bundled classes; other plugins (none today) load as usual.
(Plugin.prototype as unknown as PluginInternals).loadCommandsFromTarget = async function (
  this: PluginInternals,
) {
  if (this.isRoot) return (this.commandCache = COMMANDS);
  return loadFromTarget.call(this);
};

void (async () => {
  // The executable's folder stands in for the package root (oclif derives nothing from it but paths).
  const root = dirname(process.execPath);
  const config = await Config.load({
    root,
    pjson: pjson as unknown as Interfaces.PJSON,
    isRoot: true,
    userPlugins: false,
  });
  process.exitCode = await main(process.argv.slice(2), config);
})();
