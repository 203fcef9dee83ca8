/**
 * Manifest cache expiry (src/source/cache.ts): entries neither written nor hit for the expiration are
 * removed by a sweep that a long-running process starts from `put` once per expiration/24; a hit renews its
 * entry; a process younger than that period (a one-shot command) never sweeps.
 */
import { strict as assert } from 'node:assert';
import { existsSync, utimesSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ManifestCache } from '../../src/source/cache.js';
import { tempDir } from '../support/git.js';

const entry = { type: 'Directory' as const, tool: '', toolFingerprint: '', objects: [{ kind: 'ConfigMap' }] };

describe('manifest cache expiry', () => {
  it('removes entries unused for the expiration, keeps hit ones, sweeps only once a process ran a period', async () => {
    const hour = 3600_000;
    let now = Date.now();
    const cache = new ManifestCache({
      root: tempDir(),
      fingerprint: () => Promise.resolve(''),
      expirationMs: 24 * hour,
      now: () => now,
    });
    const old = new Date(now - 25 * hour);
    for (const key of ['aa01', 'aa02', 'bb03']) {
      await cache.put(key, entry);
      utimesSync(cache.path(key), old, old);
    }
    // A hit renews its entry.
    assert.ok(await cache.get('aa02'));
    // A young process does not sweep.
    await cache.put('cc04', entry);
    assert.ok(existsSync(cache.path('aa01')));
    // An hour later a put starts the sweep: the unused old entries go, the hit one and the new one stay.
    now += hour;
    await cache.put('dd05', entry);
    await cache.sweep();
    assert.equal(existsSync(cache.path('aa01')), false);
    assert.equal(existsSync(cache.path('bb03')), false);
    assert.ok(existsSync(cache.path('aa02')));
    assert.ok(existsSync(cache.path('cc04')));
    assert.ok(existsSync(cache.path('dd05')));
    assert.equal(cache.stats.expired, 2);
    assert.equal(await cache.get('aa01'), undefined);
  });
});
