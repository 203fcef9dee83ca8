/**
 * `linkedSignal` (src/common/signals.ts): follows its sources like `AbortSignal.any`, and `dispose()`
 * leaves nothing on them (the Node 20 leak it replaces: every `AbortSignal.any` on a long-lived signal kept
 * a WeakRef on it for good).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { linkedSignal } from '../../src/common/index.js';

describe('linkedSignal', () => {
  it('aborts with the reason of the first source that aborts, and unhooks from the others', () => {
    const a = new AbortController();
    const b = new AbortController();
    const linked = linkedSignal(a.signal, undefined, b.signal);
    assert.equal(linked.signal.aborted, false);
    const reason = new Error('b stopped');
    b.abort(reason);
    assert.equal(linked.signal.aborted, true);
    assert.equal(linked.signal.reason, reason);
    assert.equal(getEventListeners(a.signal, 'abort').length, 0);
    a.abort(new Error('later'));
    assert.equal(linked.signal.reason, reason);
  });

  it('is aborted at once when a source already is', () => {
    const a = new AbortController();
    a.abort('gone');
    const live = new AbortController();
    const linked = linkedSignal(live.signal, a.signal);
    assert.equal(linked.signal.aborted, true);
    assert.equal(linked.signal.reason, 'gone');
    assert.equal(getEventListeners(live.signal, 'abort').length, 0);
  });

  it('dispose() removes every listener it put on a long-lived source (10,000 links leave none)', () => {
    const long = new AbortController();
    for (let i = 0; i < 10_000; i++) {
      const linked = linkedSignal(long.signal, new AbortController().signal);
      assert.equal(getEventListeners(long.signal, 'abort').length, 1);
      linked.dispose();
      linked.dispose(); // idempotent
    }
    assert.equal(getEventListeners(long.signal, 'abort').length, 0);
    // After dispose the link no longer follows the source.
    const linked = linkedSignal(long.signal);
    linked.dispose();
    long.abort();
    assert.equal(linked.signal.aborted, false);
  });
});
