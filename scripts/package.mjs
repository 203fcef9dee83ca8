// `npm run package`: the standalone executable and its krew packaging.
//
// 1. Bundles src/sea.ts as one CommonJS file (Node 20's single executable applications run a CommonJS
//    main script whose require() reaches only built-in modules).
// 2. Builds the SEA blob (node --experimental-sea-config) and injects it into a copy of this node binary
//    with postject: dist/bin/kubectl-gitops, which runs with no Node.js installed.
// 3. Archives it with LICENSE as dist/kubectl-gitops_v<version>_linux_amd64.tar.gz (the layout the krew
//    manifest names), reproducibly (scripts/archive.mjs: sorted entries, one mtime, root:root, fixed modes,
//    no gzip timestamp), and writes the krew manifest filled with the archive's sha256 to dist/gitops.yaml.
//    The tracked plugins/gitops.yaml is the template and is never rewritten (a build leaves git clean).
// `--out DIR` puts every artifact under DIR instead of dist/ (the tests use it).
// The archive's mtime is SOURCE_DATE_EPOCH when set, else the commit time of HEAD, so two builds of one
// commit give the same sha256.
import { build } from 'esbuild';
import { isBuiltin } from 'node:module';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeReproducibleTarGz } from './archive.mjs';
import { clientNodeKubeConfigOnly } from './esbuild-client-node.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const outFlag = process.argv.indexOf('--out');
const outDir = outFlag > 0 ? process.argv[outFlag + 1] : join(root, 'dist');
const seaDir = join(outDir, 'sea');
const binDir = join(outDir, 'bin');
const exe = join(binDir, 'kubectl-gitops');

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', ...opts });
  if (r.status !== 0) {
    throw new Error(
      `${cmd} ${args.join(' ')} failed (exit ${r.status}): ${(r.stderr || r.stdout || '').trim()}`,
    );
  }
  return r.stdout;
}

if (process.platform !== 'linux' || process.arch !== 'x64') {
  throw new Error(`npm run package builds linux-x64 only; this is ${process.platform}-${process.arch}`);
}
rmSync(seaDir, { recursive: true, force: true });
rmSync(binDir, { recursive: true, force: true });
mkdirSync(seaDir, { recursive: true });
mkdirSync(binDir, { recursive: true });

// A SEA's require() loads only Node's built-in modules, and asking it for anything else prints Node's
// "require() provided to the main script ... only supports loading built-in modules" warning, even when
// the caller catches the failure. Dependencies probe for optional packages that way (ws: bufferutil and
// utf-8-validate, node-fetch: encoding; @oclif/core: typescript, for development only), so such requires
// are bundled as a module that throws MODULE_NOT_FOUND, the error their try/catch expects, and the SEA's
// require() only ever sees built-ins.
const ABSENT = new Set(['typescript']);
const absentModules = [];
const absentOptionalModules = {
  name: 'absent-optional-modules',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, async (args) => {
      // esbuild itself reports an unresolvable import statement; only require() calls are probes.
      if (args.pluginData?.probe || args.kind !== 'require-call' || isBuiltin(args.path)) return undefined;
      const absent =
        ABSENT.has(args.path) ||
        (
          await b.resolve(args.path, {
            kind: args.kind,
            resolveDir: args.resolveDir,
            importer: args.importer,
            pluginData: { probe: true },
          })
        ).errors.length > 0;
      if (!absent) return undefined;
      if (!absentModules.includes(args.path)) absentModules.push(args.path);
      return { path: args.path, namespace: 'absent' };
    });
    b.onLoad({ filter: /.*/, namespace: 'absent' }, (args) => ({
      contents: `const e = new Error(${JSON.stringify(`Cannot find module '${args.path}' (not part of the standalone executable)`)}); e.code = 'MODULE_NOT_FOUND'; throw e;`,
      loader: 'js',
    }));
  },
};

await build({
  absWorkingDir: root,
  entryPoints: ['src/sea.ts'],
  outfile: join(seaDir, 'main.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  plugins: [clientNodeKubeConfigOnly, absentOptionalModules],
  logLevel: 'error',
  // Bundled ESM dependencies may read import.meta.url; in CommonJS it is the script's own file URL.
  define: { 'import.meta.url': '__sea_import_meta_url' },
  // oclif checks the Node version against its own package.json beside the module; a SEA carries its Node
  // and has no such file (asking for it makes Node warn that SEA require() loads only built-ins).
  banner: {
    js: "const __sea_import_meta_url = require('node:url').pathToFileURL(__filename).href; process.env.OCLIF_DISABLE_ENGINE_WARNING ??= '1';",
  },
});

const seaConfig = join(seaDir, 'sea-config.json');
writeFileSync(
  seaConfig,
  // Paths relative to seaDir (the blob is built there): an absolute path ends up in the blob's code cache,
  // and the blob would differ between output folders.
  JSON.stringify({
    main: 'main.cjs',
    output: 'sea-prep.blob',
    disableExperimentalSEAWarning: true,
    useCodeCache: true,
  }),
);
// V8's code cache is built with a random seed per process, which changes the blob's bytes on every build;
// a fixed --random-seed makes it reproducible. (--hash-seed would too, but it enters V8's flag hash and the
// executable would then reject the cache at start: "Code cache data rejected".)
run(process.execPath, ['--random-seed=1', '--experimental-sea-config', 'sea-config.json'], { cwd: seaDir });
copyFileSync(process.execPath, exe);
chmodSync(exe, 0o755);
run(process.execPath, [
  join(root, 'node_modules', 'postject', 'dist', 'cli.js'),
  exe,
  'NODE_SEA_BLOB',
  join(seaDir, 'sea-prep.blob'),
  '--sentinel-fuse',
  'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
]);

// The krew archive: the binary and the licence at the top level (the manifest's `files`).
const archiveName = `kubectl-gitops_v${pkg.version}_linux_amd64.tar.gz`;
const archive = join(outDir, archiveName);
copyFileSync(join(root, 'LICENSE'), join(binDir, 'LICENSE'));
writeReproducibleTarGz(
  archive,
  ['kubectl-gitops', 'LICENSE'].map((name) => ({ name, file: join(binDir, name) })),
  archiveMtime(),
);
const sha256 = createHash('sha256').update(readFileSync(archive)).digest('hex');

const manifestPath = join(root, 'plugins', 'gitops.yaml');
const manifest = readFileSync(manifestPath, 'utf8')
  .replace(/^(\s*version: )v.*$/m, `$1v${pkg.version}`)
  .replace(
    /^(\s*uri: ).*$/m,
    (_, p) =>
      `${p}${pkg.repository?.releases ?? 'https://example.invalid/kubectl-gitops/releases/download'}/v${pkg.version}/${archiveName}`,
  )
  .replace(/^(\s*sha256: ).*$/m, `$1${sha256}`);
writeFileSync(join(outDir, 'gitops.yaml'), manifest);
console.log(
  `${exe}\n${archive}\nsha256 ${sha256} (written to ${join(outDir, 'gitops.yaml')})\nbundled as absent (optional, never loaded): ${absentModules.sort().join(', ')}`,
);

function archiveMtime() {
  if (process.env.SOURCE_DATE_EPOCH) return Number(process.env.SOURCE_DATE_EPOCH);
  const r = spawnSync('git', ['log', '-1', '--format=%ct'], { cwd: root, encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() ? Number(r.stdout.trim()) : 0;
}
