// `npm run package`: the standalone executable for every platform krew serves, and its krew packaging.
//
// 1. Bundles src/sea.ts as one CommonJS file (Node 20's single executable applications run a CommonJS
//    main script whose require() reaches only built-in modules).
// 2. Builds the SEA blob (node --experimental-sea-config) twice: with V8's code cache, for a Node binary
//    that is byte for byte this one (the cache is valid only there), and without, for every other.
// 3. For each platform (scripts/node-binaries.mjs: linux x64/arm64, darwin x64/arm64, windows x64), takes
//    Node's official binary of this Node version from the npm registry (cached outside the repository),
//    and injects the blob as Node's SEA documents it for that format, with postject (the NODE_SEA_BLOB
//    ELF note / PE RT_RCDATA resource / Mach-O section __NODE_SEA_BLOB of segment NODE_SEA, and the
//    sentinel fuse). Windows: the Authenticode signature the injection would invalidate is removed first.
//    macOS: the executable is signed ad hoc (scripts/macho-sign.mjs), as Apple silicon runs nothing
//    unsigned.
// 4. Checks each executable without running it (scripts/executables.mjs: format, CPU, entry point, the
//    blob where Node finds it, the fuse; the signature's page hashes), then runs `version` on this host's
//    platform and on linux-arm64 under qemu-aarch64 when it is installed (Debian's qemu-user with
//    libc6-arm64-cross and libstdc++6-arm64-cross).
// 5. Archives each with LICENSE as dist/kubectl-gitops_v<version>_<os>_<arch>.tar.gz, reproducibly
//    (scripts/archive.mjs), and writes the krew manifest dist/gitops.yaml from the tracked template
//    plugins/gitops.yaml (never rewritten): one platform entry per archive with its uri and sha256.
// Options: `--out DIR` (default dist/), `--platforms id,id` (default all), `--host-node` (use this Node's
// own binary for this host's platform instead of the registry's: no download; the tests use it).
// The archives' mtime is SOURCE_DATE_EPOCH when set, else the commit time of HEAD: two builds of one
// commit give the same bytes.
import { build } from 'esbuild';
import { isBuiltin } from 'node:module';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';
import { writeReproducibleTarGz } from './archive.mjs';
import { clientNodeKubeConfigOnly } from './esbuild-client-node.mjs';
import {
  checkSeaExecutable,
  MACHO_SEA_SEGMENT,
  removePeSignature,
  SEA_FUSE,
  SEA_RESOURCE,
} from './executables.mjs';
import { signAdhoc, verifyAdhocSignature } from './macho-sign.mjs';
import { hostPlatform, nodeBinary, platformById, PLATFORMS } from './node-binaries.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const option = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const outDir = option('--out') ?? join(root, 'dist');
const platforms = (option('--platforms')?.split(',') ?? PLATFORMS.map((p) => p.id)).map(platformById);
const hostNode = process.argv.includes('--host-node');
const seaDir = join(outDir, 'sea');
const binDir = join(outDir, 'bin');
const sha256 = (data) => createHash('sha256').update(data).digest('hex');
const log = (line) => process.stderr.write(`${line}\n`);

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20, ...opts });
  if (r.status !== 0) {
    throw new Error(
      `${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal}): ${(r.stderr || r.stdout || r.error?.message || '').trim()}`,
    );
  }
  return r.stdout;
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

/** The SEA blob, with V8's code cache (valid only in this very Node binary) or without. */
function seaBlob(codeCache) {
  const name = codeCache ? 'sea-prep.blob' : 'sea-prep-portable.blob';
  const config = codeCache ? 'sea-config.json' : 'sea-config-portable.json';
  // Paths relative to seaDir (the blob is built there): an absolute path ends up in the blob's code cache,
  // and the blob would differ between output folders.
  writeFileSync(
    join(seaDir, config),
    JSON.stringify({
      main: 'main.cjs',
      output: name,
      disableExperimentalSEAWarning: true,
      useCodeCache: codeCache,
    }),
  );
  // V8's code cache is built with a random seed per process, which changes the blob's bytes on every
  // build; a fixed --random-seed makes it reproducible. (--hash-seed would too, but it enters V8's flag hash
  // and the executable would then reject the cache at start: "Code cache data rejected".)
  run(process.execPath, ['--random-seed=1', '--experimental-sea-config', config], { cwd: seaDir });
  return { file: join(seaDir, name), data: readFileSync(join(seaDir, name)) };
}
const thisNode = readFileSync(process.execPath);
const blobs = new Map();
const blobFor = (codeCache) => {
  if (!blobs.has(codeCache)) blobs.set(codeCache, seaBlob(codeCache));
  return blobs.get(codeCache);
};

const host = hostPlatform();
const mtime = archiveMtime();
copyFileSync(join(root, 'LICENSE'), join(binDir, 'LICENSE'));
const built = [];
for (const platform of platforms) {
  const started = Date.now();
  const node =
    hostNode && platform.id === host?.id
      ? { data: thisNode, package: `this Node (${process.execPath})`, version: process.versions.node }
      : nodeBinary(platform, { log });
  if (node.notice) log(`notice: ${node.notice}`);
  const codeCache = node.data.equals(thisNode);
  const blob = blobFor(codeCache);
  const dir = join(binDir, platform.id);
  mkdirSync(dir, { recursive: true });
  const exe = join(dir, platform.exe);
  writeFileSync(exe, platform.os === 'windows' ? removePeSignature(node.data) : node.data);
  chmodSync(exe, 0o755);
  // postject prints LIEF's notes about ELF section names; they are not errors (its exit code says).
  run(process.execPath, [
    join(root, 'node_modules', 'postject', 'dist', 'cli.js'),
    exe,
    SEA_RESOURCE,
    blob.file,
    '--sentinel-fuse',
    SEA_FUSE,
    '--macho-segment-name',
    MACHO_SEA_SEGMENT,
  ]);
  let data = readFileSync(exe);
  const checks = [checkSeaExecutable(data, platform, blob.data, exe)];
  if (platform.os === 'darwin') {
    data = signAdhoc(data, 'kubectl-gitops');
    writeFileSync(exe, data);
    const sig = verifyAdhocSignature(data, exe);
    checks.push(
      `ad-hoc signature of ${sig.identifier}: ${sig.pages} page hashes verified, cdhash ${sig.cdhash}`,
    );
  }
  // The archive: the binary and the licence at the top level (the manifest's `files`).
  const archiveName = `kubectl-gitops_v${pkg.version}_${platform.krew.os}_${platform.krew.arch}.tar.gz`;
  const archive = join(outDir, archiveName);
  writeReproducibleTarGz(
    archive,
    [
      { name: platform.exe, file: exe },
      { name: 'LICENSE', file: join(binDir, 'LICENSE') },
    ],
    mtime,
  );
  const entry = {
    platform,
    exe,
    archive,
    archiveName,
    sha256: sha256(readFileSync(archive)),
    node: `${node.package}@${node.version}`,
    codeCache,
    checks,
  };
  entry.checks.push(...runChecks(entry));
  built.push(entry);
  log(
    `${platform.id}: ${archiveName} (${mib(statSync(archive).size)}, executable ${mib(data.length)}) in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
}

// The krew manifest: the template's fields, and one platform entry per archive built, shaped as the
// template's example entry.
const doc = parseDocument(readFileSync(join(root, 'plugins', 'gitops.yaml'), 'utf8'));
doc.setIn(['spec', 'version'], `v${pkg.version}`);
const releases = pkg.repository?.releases ?? 'https://example.invalid/kubectl-gitops/releases/download';
doc.setIn(
  ['spec', 'platforms'],
  built.map((b) => ({
    selector: { matchLabels: { os: b.platform.krew.os, arch: b.platform.krew.arch } },
    uri: `${releases}/v${pkg.version}/${b.archiveName}`,
    sha256: b.sha256,
    bin: b.platform.exe,
    files: [
      { from: b.platform.exe, to: '.' },
      { from: 'LICENSE', to: '.' },
    ],
  })),
);
const manifest = join(outDir, 'gitops.yaml');
writeFileSync(manifest, doc.toString({ lineWidth: 0 }));

const summary = {
  manifest,
  absentModules: absentModules.sort(),
  platforms: built.map((b) => ({
    platform: b.platform.id,
    archive: b.archive,
    bytes: statSync(b.archive).size,
    executableBytes: statSync(b.exe).size,
    sha256: b.sha256,
    node: b.node,
    codeCache: b.codeCache,
    checks: b.checks,
  })),
};
writeFileSync(join(outDir, 'package-report.json'), `${JSON.stringify(summary, null, 2)}\n`);
for (const b of summary.platforms) {
  console.log(`${b.platform}\t${b.archive}\t${mib(b.bytes)}\tsha256 ${b.sha256}\t${b.node}`);
  for (const c of b.checks) console.log(`  ${c}`);
}
console.log(`krew manifest: ${manifest}`);
console.log(`bundled as absent (optional, never loaded): ${summary.absentModules.join(', ')}`);

function mib(bytes) {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

/**
 * Runs `version -o json` where this machine can: natively for its own platform, linux-arm64 under
 * qemu-aarch64 (user-mode emulation) when installed. Others: a line saying why not.
 */
function runChecks({ platform, exe }) {
  let cmd;
  let args = [];
  if (platform.id === host?.id) cmd = exe;
  else if (platform.id === 'linux-arm64' && process.platform === 'linux') {
    const qemu = ['/usr/bin/qemu-aarch64', '/usr/bin/qemu-aarch64-static'].find((q) => existsSync(q));
    if (!qemu)
      return [
        'not run: qemu-aarch64 is not installed (apt-get install qemu-user libc6-arm64-cross libstdc++6-arm64-cross)',
      ];
    cmd = qemu;
    args = [...(existsSync('/usr/aarch64-linux-gnu') ? ['-L', '/usr/aarch64-linux-gnu'] : []), exe];
  } else return [`not run: a ${platform.id} executable does not run on ${process.platform}-${process.arch}`];
  const r = spawnSync(cmd, [...args, 'version', '-o', 'json'], {
    encoding: 'utf8',
    env: {},
    timeout: 300_000,
  });
  if (r.status !== 0 || r.stderr !== '')
    throw new Error(
      `${exe} version: exit ${r.status ?? r.signal}: ${(r.stderr || r.error?.message || '').trim()}`,
    );
  const v = JSON.parse(r.stdout);
  if (!v.standalone || v.version !== `v${pkg.version}`)
    throw new Error(`${exe} version: ${r.stdout.trim()}: not the standalone executable of ${pkg.version}`);
  const how = cmd === exe ? 'ran' : `ran under ${cmd}`;
  return [`${how}: version -o json -> ${JSON.stringify(v)}`];
}

function archiveMtime() {
  if (process.env.SOURCE_DATE_EPOCH) return Number(process.env.SOURCE_DATE_EPOCH);
  const r = spawnSync('git', ['log', '-1', '--format=%ct'], { cwd: root, encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() ? Number(r.stdout.trim()) : 0;
}
