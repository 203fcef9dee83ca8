/**
 * Explicit command discovery (package.json "oclif.commands"): oclif imports this one module instead of
 * scanning src/commands. Every command is registered here, one line each.
 */
import { commands as helpPlugin } from '@oclif/plugin-help';
import Render from './render.js';
import Shards from './shards.js';

export const COMMANDS = {
  // The help plugin's `help` command, registered explicitly: with explicit discovery oclif loads no plugins.
  help: helpPlugin.help,
  render: Render,
  shards: Shards,
};
