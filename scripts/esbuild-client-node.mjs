// esbuild plugin shared by scripts/build.mjs and scripts/package.mjs: bundle only the part of
// @kubernetes/client-node that the CLI runs.
//
// We use client-node's KubeConfig alone (src/cluster/kubeconfig.ts imports it from dist/config.js). But
// config.js imports two names (createConfiguration, ServerConfiguration, for makeApiClient) from the
// generated client's index, and that index re-exports every generated API class and model, which the
// models' serializer table keeps alive: about 14 MB that esbuild cannot tree-shake. Bundled, that was 18 MB
// of the 22 MB standalone executable script, parsed on every start (issue 12: the executable used twice
// the memory of `node bin/kubectl-gitops`), and most of the ~400 ms a cluster command paid to load it.
//
// This plugin resolves that one import to the two modules that define those names. If a client-node
// release makes config.js import anything else from the index, esbuild fails the build with "No matching
// export" naming it: the cut never drops code silently.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const CONFIG = /[\\/]@kubernetes[\\/]client-node[\\/]dist[\\/]config\.js$/;

/** The names config.js takes from './gen/index.js', and the generated module that defines each. */
const GENERATED = {
  createConfiguration: './gen/configuration.js',
  ServerConfiguration: './gen/servers.js',
};

export const clientNodeKubeConfigOnly = {
  name: 'client-node-kubeconfig-only',
  setup(b) {
    b.onResolve({ filter: /^\.\/gen\/index\.js$/ }, (args) =>
      CONFIG.test(args.importer)
        ? { path: join(args.resolveDir, 'gen', 'index.js'), namespace: 'client-node-gen' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'client-node-gen' }, (args) => {
      const resolveDir = join(args.path, '..', '..');
      // The generated files must still define these names (checked here, with a clear error, as well as by
      // esbuild's own export check).
      for (const [name, file] of Object.entries(GENERATED)) {
        const source = readFileSync(join(resolveDir, file), 'utf8');
        if (!new RegExp(`export (function|class) ${name}\\b`).test(source)) {
          throw new Error(`@kubernetes/client-node: ${file} no longer exports ${name}; update this plugin`);
        }
      }
      return {
        contents: Object.entries(GENERATED)
          .map(([name, file]) => `export { ${name} } from ${JSON.stringify(file)};`)
          .join('\n'),
        resolveDir,
        loader: 'js',
      };
    });
  },
};
