/**
 * scripts/archive.mjs, the krew archive writer of `npm run package`: the same files give the same bytes
 * whatever their mtimes, owners, order or the build folder, and `tar` reads the result back.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { reproducibleTarGz } from '../../scripts/archive.mjs';

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

function files(dir: string, mtime: number): { name: string; file: string }[] {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'tool'), '#!/bin/sh\necho hi\n');
  chmodSync(join(dir, 'tool'), 0o700);
  writeFileSync(join(dir, 'LICENSE'), 'Apache-2.0\n'.repeat(100));
  chmodSync(join(dir, 'LICENSE'), 0o600);
  for (const f of ['tool', 'LICENSE']) utimesSync(join(dir, f), mtime, mtime);
  return [
    { name: 'tool', file: join(dir, 'tool') },
    { name: 'LICENSE', file: join(dir, 'LICENSE') },
  ];
}

describe('reproducible krew archive', () => {
  it('gives the same sha256 for the same files, whatever their mtimes, modes, order and folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kg-archive-'));
    try {
      const a = reproducibleTarGz(files(join(dir, 'a'), 1_000_000), 1_700_000_000);
      const b = reproducibleTarGz(files(join(dir, 'b'), 2_000_000).reverse(), 1_700_000_000);
      assert.equal(sha256(a), sha256(b));
      // gzip header: no file name flag and mtime 0 (bytes 3..7)
      assert.deepEqual([...a.subarray(3, 8)], [0, 0, 0, 0, 0]);
      const other = reproducibleTarGz(files(join(dir, 'c'), 1_000_000), 1_700_000_001);
      assert.notEqual(sha256(other), sha256(a), 'the mtime given is the one written');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is read back by tar: sorted entries, root:root, 0755 executables and 0644 others, the fixed mtime', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kg-archive-'));
    try {
      const archive = join(dir, 'x.tar.gz');
      writeFileSync(archive, reproducibleTarGz(files(join(dir, 'in'), 5), 1_700_000_000));
      const list = spawnSync('tar', ['--numeric-owner', '--full-time', '-tvzf', archive], {
        encoding: 'utf8',
        env: { ...process.env, TZ: 'UTC' },
      });
      assert.equal(list.status, 0, list.stderr);
      const rows = list.stdout
        .trim()
        .split('\n')
        .map((l) => l.split(/\s+/));
      assert.deepEqual(
        rows.map((r) => [r[0], r[1], r[5]]),
        [
          ['-rw-r--r--', '0/0', 'LICENSE'],
          ['-rwxr-xr-x', '0/0', 'tool'],
        ],
      );
      assert.ok(
        rows.every((r) => `${r[3]}T${r[4]}Z` === '2023-11-14T22:13:20Z'),
        list.stdout,
      );
      mkdirSync(join(dir, 'out'));
      const x = spawnSync('tar', ['-xzf', archive, '-C', join(dir, 'out')], { encoding: 'utf8' });
      assert.equal(x.status, 0, x.stderr);
      assert.equal(readFileSync(join(dir, 'out', 'LICENSE'), 'utf8'), 'Apache-2.0\n'.repeat(100));
      assert.equal(readFileSync(join(dir, 'out', 'tool'), 'utf8'), '#!/bin/sh\necho hi\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
