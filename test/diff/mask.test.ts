import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compareResource } from '../../src/diff/index.js';
import type { CompareResult } from '../../src/diff/index.js';
import type { KubeObject } from '../../src/util/yaml-docs.js';
import { LAST_APPLIED } from './fixtures.js';
import type { Any } from './fixtures.js';

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
const SECRETS = ['hunter2', 'old-password', 'new-password', 'api-token-123', 'from-string-data'];

function secret(data: Record<string, string> | undefined, stringData?: Record<string, string>): KubeObject {
  const s: Any = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'db', namespace: 'shop' },
    type: 'Opaque',
  };
  if (data) s['data'] = data;
  if (stringData) s['stringData'] = stringData;
  return s as KubeObject;
}

/** No secret value, raw or base64, appears anywhere in the serialized result (diff text included). */
function assertNoLeak(r: CompareResult): void {
  const text = JSON.stringify(r);
  for (const v of SECRETS) {
    assert.equal(text.includes(v), false, `leaked ${v}`);
    assert.equal(text.includes(b64(v)), false, `leaked base64 of ${v}`);
  }
}

const data = (obj: unknown): Any => (obj as Any)['data'];

describe('Secret masking', () => {
  it('a changed key gets different masks, an unchanged key equal masks; values never leak', () => {
    const target = secret({ user: b64('hunter2'), password: b64('new-password') });
    const live = secret({ user: b64('hunter2'), password: b64('old-password') });
    const r = compareResource({ target, live });
    assert.equal(r.status, 'OutOfSync');
    assert.deepEqual(data(r.normalizedTarget), { user: '++++++++', password: '++++++++' });
    assert.deepEqual(data(r.normalizedLive), { user: '++++++++', password: '++++++++++++' });
    assert.match(r.diffText ?? '', /^- {2}password: \+{12}$/m);
    assert.match(r.diffText ?? '', /^\+ {2}password: \+{8}$/m);
    assert.match(r.diffText ?? '', /^ {3}user: \+{8}$/m, 'unchanged key only as context');
    const changed = r.changes.find((c) => c.key === 'data')?.changes?.map((c) => c.key);
    assert.deepEqual(changed, ['password']);
    assertNoLeak(r);
  });

  it('an equal Secret is Synced and still masked', () => {
    const r = compareResource({
      target: secret({ token: b64('api-token-123') }),
      live: secret({ token: b64('api-token-123') }),
    });
    assert.equal(r.status, 'Synced');
    assert.deepEqual(data(r.normalizedLive), { token: '++++++++' });
    assertNoLeak(r);
  });

  it('stringData in the target compares as base64 data and is masked too', () => {
    const target = secret(undefined, { token: 'api-token-123' });
    const live = secret({ token: b64('api-token-123') });
    const r = compareResource({ target, live });
    assert.equal(r.status, 'Synced');
    assert.equal((r.normalizedTarget as Any)['stringData'], undefined);
    assertNoLeak(r);
    const changed = compareResource({ target: secret(undefined, { token: 'from-string-data' }), live });
    assert.equal(changed.status, 'OutOfSync');
    assertNoLeak(changed);
  });

  it('the last-applied copy of the values is dropped and its values shift the masks like Argo CD', () => {
    const applied = secret({ password: b64('hunter2'), removed: b64('old-password') });
    const live = secret({ password: b64('new-password'), removed: b64('old-password') });
    (live as Any)['metadata']['annotations'] = { [LAST_APPLIED]: JSON.stringify(applied) };
    const target = secret({ password: b64('api-token-123') });
    const r = compareResource({ target, live });
    assert.equal(r.status, 'OutOfSync');
    assert.equal(data(r.normalizedTarget)['removed'], undefined, 'removed from Git, applied before');
    assert.equal(data(r.normalizedLive)['removed'], '++++++++');
    assert.equal(JSON.stringify(r).includes(LAST_APPLIED), false);
    assertNoLeak(r);
  });

  it('missing and extra Secrets are masked', () => {
    for (const r of [
      compareResource({ target: secret({ a: b64('hunter2') }, { b: 'new-password' }), live: null }),
      compareResource({ target: null, live: secret({ a: b64('hunter2') }) }),
    ]) {
      assert.equal(r.status, 'OutOfSync');
      assertNoLeak(r);
      assert.match(r.diffText ?? '', /a: \+{8}/);
    }
  });

  it('a Secret of the wrong shape or apiVersion (one the API server would refuse) is masked too', () => {
    const wrong: Any[] = [
      { ...secret(undefined), data: 'password: hunter2' }, // a string where a map belongs
      { ...secret(undefined), data: ['api-token-123'] }, // a list
      { ...secret(undefined), stringData: ['from-string-data'] },
      { ...secret({ password: b64('new-password') }), apiVersion: 'core/v1' }, // no such group
    ];
    for (const target of wrong) {
      const missing = compareResource({ target: target as KubeObject, diffText: true });
      assertNoLeak(missing);
      const live = secret({ password: b64('old-password') });
      const changed = compareResource({ target: target as KubeObject, live, diffText: true });
      assertNoLeak(changed);
    }
  });

  it('sensitive annotations are masked in any kind', () => {
    const cm = (v: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'shop', annotations: { 'vault/token': v, note: 'plain' } },
    });
    const r = compareResource({
      target: cm('new-password'),
      live: cm('old-password'),
      sensitiveAnnotations: ['vault/token'],
    });
    assert.equal(r.status, 'OutOfSync');
    assert.equal((r.normalizedLive as Any)['metadata']['annotations']['note'], 'plain');
    assertNoLeak(r);
  });
});
