/**
 * `linkedSignal` (src/common/signals.ts): follows its sources like `AbortSignal.any`, and `dispose()`
 * leaves nothing on them (the Node 20 leak it replaces: every `AbortSignal.any` on a long-lived signal kept
 * a WeakRef on it for good).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { linkedSignal, onAbort } from '../../src/common/index.js';

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

  it('many links and waits on one source share one listener on it (no MaxListenersExceededWarning), gone with the last', () => {
    const source = new AbortController();
    // A sync's parallel dry runs: one linked request deadline each (issue 34: 11 made Node warn).
    const links = Array.from({ length: 50 }, () => linkedSignal(source.signal));
    const waits: string[] = [];
    const unhooks = Array.from({ length: 20 }, (_, i) => onAbort(source.signal, () => waits.push(`w${i}`)));
    assert.equal(getEventListeners(source.signal, 'abort').length, 1);
    for (const l of links.slice(0, 49)) l.dispose();
    for (const u of unhooks.slice(0, 19)) u();
    assert.equal(getEventListeners(source.signal, 'abort').length, 1);
    links[49]!.dispose();
    unhooks[19]!();
    unhooks[19]!(); // idempotent
    assert.equal(getEventListeners(source.signal, 'abort').length, 0);

    const again = Array.from({ length: 30 }, () => linkedSignal(source.signal));
    onAbort(source.signal, () => waits.push('last'));
    assert.equal(getEventListeners(source.signal, 'abort').length, 1);
    source.abort(new Error('stop'));
    assert.ok(again.every((l) => l.signal.aborted && (l.signal.reason as Error).message === 'stop'));
    assert.deepEqual(waits, ['last']);
    assert.equal(getEventListeners(source.signal, 'abort').length, 0);
  });
});
