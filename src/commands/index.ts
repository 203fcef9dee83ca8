/**
 * Explicit command discovery (package.json "oclif.commands"): oclif imports this one module instead of
 * scanning src/commands. Every command is registered here, one line each.
 */
import { commands as helpPlugin } from '@oclif/plugin-help';
import Controller from './controller.js';
import Diff from './diff.js';
import EmbeddedCluster from './embedded-cluster.js';
import Render from './render.js';
import Shards from './shards.js';
import Sync from './sync.js';
import Version from './version.js';

export const COMMANDS = {
  // The help plugin's `help` command, registered explicitly: with explicit discovery oclif loads no plugins.
  help: helpPlugin.help,
  controller: Controller,
  diff: Diff,
  'embedded-cluster': EmbeddedCluster,
  render: Render,
  shards: Shards,
  sync: Sync,
  version: Version,
};
