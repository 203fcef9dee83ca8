/**
 * scripts/macho-sign.mjs, the ad-hoc signer of the macOS executables of `npm run package`, on Mach-O files
 * built here: the signature it writes passes the verifier (every page hash re-derived), a changed byte
 * fails it, signing is deterministic and replaces a signature, and a file with no room or a __LINKEDIT
 * that does not end it is refused. The verifier is also run on signatures made by another signer: the Go
 * linker's own ad-hoc signature of a darwin/arm64 program (when `go` is installed).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkSeaExecutable, readMachO } from '../../scripts/executables.mjs';
import { signAdhoc, verifyAdhocSignature } from '../../scripts/macho-sign.mjs';
import { machO } from '../support/executables.js';

describe('ad-hoc Mach-O signatures', () => {
  it('signs an unsigned executable: LC_CODE_SIGNATURE added, __LINKEDIT grown to the end, hashes verified', () => {
    const unsigned = machO({ cpu: 'arm64' });
    assert.equal(readMachO(unsigned).signature, undefined);
    const signed = signAdhoc(unsigned, 'kubectl-gitops');
    const m = readMachO(signed);
    assert.ok(m.signature);
    assert.equal(m.signature.dataoff % 16, 0);
    assert.equal(m.signature.dataoff + m.signature.datasize, signed.length, 'the signature ends the file');
    const linkedit = m.segments.find((s) => s.name === '__LINKEDIT')!;
    assert.equal(linkedit.fileoff + linkedit.filesize, signed.length);
    assert.equal(linkedit.vmsize % 0x4000n, 0n);
    assert.equal(m.entryoff, 0x1000n, 'the entry point is kept');
    const v = verifyAdhocSignature(signed);
    assert.deepEqual(
      { identifier: v.identifier, adhoc: v.adhoc, flags: v.flags, pages: v.pages },
      { identifier: 'kubectl-gitops', adhoc: true, flags: 2, pages: Math.ceil(m.signature.dataoff / 4096) },
    );
    // What came before the signature is the input with only the header's fields changed.
    assert.ok(signed.subarray(0x1000, unsigned.length).equals(unsigned.subarray(0x1000)));
  });

  it('is deterministic, and re-signing replaces the signature in place', () => {
    const a = signAdhoc(machO({ cpu: 'x64' }), 'kubectl-gitops');
    const b = signAdhoc(machO({ cpu: 'x64' }), 'kubectl-gitops');
    assert.ok(a.equals(b));
    const again = signAdhoc(a, 'kubectl-gitops');
    assert.ok(again.equals(a), 'signing a signed file gives the same bytes');
    assert.notEqual(
      verifyAdhocSignature(signAdhoc(machO({ cpu: 'x64', fill: 7 }), 'kubectl-gitops')).cdhash,
      verifyAdhocSignature(a).cdhash,
    );
  });

  it('a changed byte anywhere before the signature fails the verification, naming the page', () => {
    const signed = signAdhoc(machO({ cpu: 'arm64' }), 'kubectl-gitops');
    for (const at of [0x1004, 0x2010]) {
      const bad = Buffer.from(signed);
      bad[at]! ^= 0xff;
      assert.throws(
        () => verifyAdhocSignature(bad, 'bad'),
        new RegExp(
          `^Error: bad: page ${Math.floor(at / 4096)} \\(bytes ${Math.floor(at / 4096) * 4096}\\.\\.\\) does not match its hash$`,
        ),
      );
    }
    assert.throws(() => verifyAdhocSignature(machO({ cpu: 'arm64' }), 'plain'), /plain: not signed/);
  });

  it('refuses a file without room for the load command, or with data after __LINKEDIT', () => {
    assert.throws(() => signAdhoc(machO({ cpu: 'arm64', room: 8 }), 'x'), /no room for LC_CODE_SIGNATURE/);
    const trailing = Buffer.concat([machO({ cpu: 'arm64' }), Buffer.alloc(100, 1)]);
    assert.throws(() => signAdhoc(trailing, 'x'), /__LINKEDIT does not end the file/);
  });

  it('the SEA check finds the blob in segment NODE_SEA and the flipped fuse, and names a wrong CPU', () => {
    const blob = Buffer.from('the blob');
    const signed = signAdhoc(machO({ cpu: 'arm64', seaBlob: blob }), 'kubectl-gitops');
    assert.match(
      checkSeaExecutable(signed, { os: 'darwin', cpu: 'arm64' }, blob),
      /^Mach-O arm64 executable, LC_MAIN entry 0x1000 in __TEXT; NODE_SEA_BLOB 8 bytes; fuse flipped$/,
    );
    assert.throws(
      () => checkSeaExecutable(signed, { os: 'darwin', cpu: 'x64' }, blob, 'exe'),
      /^Error: exe: built for arm64, expected x64$/,
    );
    assert.throws(
      () => checkSeaExecutable(signed, { os: 'darwin', cpu: 'arm64' }, Buffer.from('other'), 'exe'),
      /exe: NODE_SEA_BLOB \(8 bytes\) is not the blob built \(5 bytes\)/,
    );
    assert.throws(
      () => checkSeaExecutable(machO({ cpu: 'arm64' }), { os: 'darwin', cpu: 'arm64' }, blob, 'exe'),
      /exe: the SEA fuse is missing, not flipped/,
    );
  });

  const go = spawnSync('go', ['version'], { encoding: 'utf8' });
  it(
    "verifies the Go linker's own ad-hoc signature of a darwin/arm64 program, and re-signs it",
    { skip: go.status === 0 ? false : 'go is not installed: no second signer to compare with' },
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'kg-macho-go-'));
      try {
        writeFileSync(join(dir, 'go.mod'), 'module hello\n\ngo 1.21\n');
        writeFileSync(join(dir, 'main.go'), 'package main\n\nfunc main() { println("hello") }\n');
        const r = spawnSync('go', ['build', '-o', 'hello', '.'], {
          cwd: dir,
          encoding: 'utf8',
          env: { ...process.env, GOOS: 'darwin', GOARCH: 'arm64', CGO_ENABLED: '0', GOFLAGS: '-mod=mod' },
        });
        assert.equal(r.status, 0, r.stderr);
        const bin = readFileSync(join(dir, 'hello'));
        const theirs = verifyAdhocSignature(bin, 'go');
        assert.equal(theirs.adhoc, true);
        assert.equal(theirs.identifier, 'a.out'); // what the Go linker names every program
        const ours = verifyAdhocSignature(signAdhoc(bin, 'hello'), 'ours');
        assert.equal(ours.pages, theirs.pages, 'the same code, the same pages');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
