// Production build: bundles the CLI with esbuild into dist/ (ESM, code splitting so the launcher and the
// commands share one copy of @oclif/core, and heavy modules such as @kubernetes/client-node land in chunks
// that load only when a command imports them), then writes oclif.manifest.json so oclif starts without
// loading every command. Usage: node scripts/build.mjs [--no-manifest]
import { build } from 'esbuild';
import { clientNodeKubeConfigOnly } from './esbuild-client-node.mjs';
import { rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
rmSync(join(root, 'dist'), { recursive: true, force: true });
rmSync(join(root, 'oclif.manifest.json'), { force: true });

const started = Date.now();
const result = await build({
  absWorkingDir: root,
  entryPoints: { cli: 'src/cli.ts', 'commands/index': 'src/commands/index.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
  // @oclif/core requires typescript only to map dist/ to src/ in development (bin/dev.js runs the sources
  // without this bundle); bundling it would add 9.7 MB to parse on every start.
  external: ['typescript'],
  // dist/meta.json: what went into which chunk; test/build.test.ts checks start-up stays light.
  metafile: true,
  plugins: [clientNodeKubeConfigOnly],
  // CommonJS dependencies bundled into ESM still call require() for Node built-ins.
  banner: {
    js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
});
writeFileSync(join(root, 'dist', 'meta.json'), JSON.stringify(result.metafile));
if (!process.argv.includes('--no-manifest')) {
  // stderr is shown only on failure: the oclif CLI prints update notices we do not want in CI logs.
  const r = spawnSync(process.execPath, [join(root, 'node_modules', 'oclif', 'bin', 'run.js'), 'manifest'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NODE_ENV: 'production', OCLIF_SKIP_UPDATE_CHECK: '1' },
  });
  if (r.status !== 0) {
    process.stderr.write(r.stderr);
    throw new Error(`oclif manifest failed (exit ${r.status})`);
  }
}
console.log(`built dist/ in ${Date.now() - started} ms`);
