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
//
// It also loads three of client-node's dependencies only when used (issue 31): config.js and the
// generated fetch library import node-fetch (with whatwg-url and tr46's 290 KB mapping table: Headers and
// fetch, for the generated API clients we never build), socks-proxy-agent and hpagent (for a cluster's
// proxy-url). Imported, they were evaluated on every start of a cluster command (about 100 ms of a small
// diff's CPU). Each such import resolves to a module whose exports construct or call the real one,
// required (and so evaluated) on first use: the same code runs, later.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const CONFIG = /[\\/]@kubernetes[\\/]client-node[\\/]dist[\\/]config\.js$/;
const CLIENT_NODE = /[\\/]@kubernetes[\\/]client-node[\\/]dist[\\/]/;

/** The lazy stand-in of each dependency: the names client-node imports of it (checked at build). */
const LAZY = {
  'node-fetch': `let m;
const load = () => (m ??= require('node-fetch'));
export function Headers(init) { return new (load().Headers)(init); }
export default function fetch(url, init) { return load()(url, init); }`,
  'socks-proxy-agent': `export function SocksProxyAgent(uri, opts) {
  return new (require('socks-proxy-agent').SocksProxyAgent)(uri, opts);
}`,
  hpagent: `export function HttpProxyAgent(opts) { return new (require('hpagent').HttpProxyAgent)(opts); }
export function HttpsProxyAgent(opts) { return new (require('hpagent').HttpsProxyAgent)(opts); }`,
};

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
    b.onResolve({ filter: /^(node-fetch|socks-proxy-agent|hpagent)$/ }, (args) =>
      CLIENT_NODE.test(args.importer)
        ? { path: args.path, namespace: 'client-node-lazy', pluginData: { resolveDir: args.resolveDir } }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'client-node-lazy' }, (args) => ({
      contents: LAZY[args.path],
      resolveDir: args.pluginData.resolveDir,
      loader: 'js',
    }));
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
