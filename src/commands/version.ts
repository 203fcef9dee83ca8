import { Flags } from '@oclif/core';
import { goPlatform } from '../common/index.js';
import { BaseCommand } from './base-command.js';

export default class Version extends BaseCommand {
  static override summary = 'Print the version of kubectl-gitops and the runtime it runs on.';

  static override description =
    'Like kubectl version --client: the plugin version, the Node.js that runs it and the platform; whether this is the standalone executable. No cluster is contacted. Also: kubectl gitops --version (one line).';

  static override usage = ['version [-o text|json|yaml]'];

  static override examples = [
    { description: 'Print the version.', command: '<%= config.bin %> version' },
    { description: 'As JSON, for scripts.', command: '<%= config.bin %> version -o json' },
  ];

  static override flags = {
    output: Flags.string({ char: 'o', description: 'Output format.', options: ['text', 'json', 'yaml'] }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Version);
    // Not import('node:sea'): in the standalone executable its main script is compiled from V8's code cache,
    // where a dynamic import() fails (so it always said "no"); getBuiltinModule is a plain call.
    const sea = process.getBuiltinModule('node:sea') as { isSea(): boolean } | undefined;
    const isSea = (): boolean => sea?.isSea() ?? false;
    const info = {
      version: `v${this.config.version}`,
      node: process.version,
      platform: goPlatform(),
      standalone: isSea(),
    };
    if (flags.output === 'json') return this.write(JSON.stringify(info, null, 2));
    if (flags.output === 'yaml')
      return this.write(
        Object.entries(info)
          .map(([k, v]) => `${k}: ${String(v)}`)
          .join('\n'),
      );
    this.write(
      [
        `kubectl-gitops: ${info.version}`,
        `  Node.js: ${info.node}`,
        `  Platform: ${info.platform}`,
        `  Standalone executable: ${info.standalone ? 'yes' : 'no'}`,
      ].join('\n'),
    );
  }
}
