// `npm run package`: the standalone executable and its krew packaging.
//
// 1. Bundles src/sea.ts as one CommonJS file (Node 20's single executable applications run a CommonJS
//    main script whose require() reaches only built-in modules).
// 2. Builds the SEA blob (node --experimental-sea-config) and injects it into a copy of this node binary
//    with postject: dist/bin/kubectl-gitops, which runs with no Node.js installed.
// 3. Archives it with LICENSE as dist/kubectl-gitops_v<version>_linux_amd64.tar.gz (the layout the krew
//    manifest names) and writes the manifest with the archive's sha256 to dist/gitops.yaml and
//    plugins/gitops.yaml.
// `--out DIR` puts every artifact (and the filled manifest) under DIR instead and leaves plugins/ alone:
// the tests use it.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

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

await build({
  absWorkingDir: root,
  entryPoints: ['src/sea.ts'],
  outfile: join(seaDir, 'main.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  external: ['typescript'],
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
  JSON.stringify({
    main: join(seaDir, 'main.cjs'),
    output: join(seaDir, 'sea-prep.blob'),
    disableExperimentalSEAWarning: true,
    useCodeCache: true,
  }),
);
run(process.execPath, ['--experimental-sea-config', seaConfig]);
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
run('tar', ['-czf', archive, '-C', binDir, 'kubectl-gitops', 'LICENSE']);
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
if (outFlag < 0) writeFileSync(manifestPath, manifest);
console.log(
  `${exe}\n${archive}\nsha256 ${sha256} (written to ${outFlag < 0 ? 'plugins/gitops.yaml and ' : ''}${join(outDir, 'gitops.yaml')})`,
);
