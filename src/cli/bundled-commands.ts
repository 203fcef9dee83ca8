/**
 * An oclif Config whose root plugin takes its commands from the `COMMANDS` object already in memory,
 * instead of importing the explicit-discovery target (dist/commands/index.js) from disk.
 *
 * Used where that file is the wrong one or absent: the development launcher (bin/dev.js) runs the
 * TypeScript sources, and must not pick up a stale bundle whose classes (GitopsError included) would be
 * second copies; the standalone executable has no files beside it at all.
 */
import { Config, Plugin, type Interfaces } from '@oclif/core';
import { COMMANDS } from '../commands/index.js';

interface RootPluginInternals {
  isRoot: boolean;
  commandCache?: unknown;
}

let patched = false;

function useInMemoryCommands(): void {
  if (patched) return;
  patched = true;
  const proto = Plugin.prototype as unknown as Record<
    string,
    (this: RootPluginInternals) => Promise<unknown>
  >;
  const loadFromTarget = proto['loadCommandsFromTarget']!;
  proto['loadCommandsFromTarget'] = async function (this: RootPluginInternals) {
    if (this.isRoot) return (this.commandCache = COMMANDS);
    return loadFromTarget.call(this);
  };
}

export interface InMemoryConfigOptions {
  root: string;
  /** package.json contents when there is no file to read (the standalone executable). */
  pjson?: Interfaces.PJSON;
}

export async function loadConfigWithInMemoryCommands(options: InMemoryConfigOptions): Promise<Config> {
  useInMemoryCommands();
  // The manifest may describe another build; the commands themselves are at hand and cheap to list.
  return Config.load({ ...options, isRoot: true, ignoreManifest: true, userPlugins: false });
}
