import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyPatch } from 'diff';
import { compareResource, toYaml, unifiedDiff } from '../../src/diff/index.js';
import { MAX_EDITS } from '../../src/diff/unified.js';
import { container, deploymentLive, deploymentTarget } from './fixtures.js';
import type { Any } from './fixtures.js';

describe('unified diff: golden text', () => {
  it('a drifted Deployment: live "-", Git "+", 3 lines of context, sorted keys, kubectl list style', () => {
    const live = deploymentLive();
    (live as Any)['spec']['replicas'] = 5;
    container(live)['image'] = 'nginx:1.24';
    const target = deploymentTarget();
    container(target)['env'] = [{ name: 'MODE', value: 'prod' }];
    const expected = `--- live apps/Deployment shop/web
+++ target apps/Deployment shop/web
@@ -10,7 +10,7 @@
   namespace: shop
 spec:
   progressDeadlineSeconds: 600
-  replicas: 5
+  replicas: 2
   revisionHistoryLimit: 10
   selector:
     matchLabels:
@@ -26,7 +26,10 @@
         app: web
     spec:
       containers:
-      - image: nginx:1.24
+      - env:
+        - name: MODE
+          value: prod
+        image: nginx:1.25
         imagePullPolicy: IfNotPresent
         name: web
         ports:
`;
    assert.equal(compareResource({ target, live }).diffText, expected);
  });

  it('a missing ConfigMap: one hunk of additions from line 0', () => {
    const r = compareResource({
      target: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'cfg', namespace: 'shop' },
        data: { 'app.properties': 'a=1\nb=2\n', mode: 'prod' },
      },
      live: null,
    });
    const expected = `--- live /ConfigMap shop/cfg
+++ target /ConfigMap shop/cfg
@@ -0,0 +1,10 @@
+apiVersion: v1
+data:
+  app.properties: |
+    a=1
+    b=2
+  mode: prod
+kind: ConfigMap
+metadata:
+  name: cfg
+  namespace: shop
`;
    assert.equal(r.diffText, expected);
  });

  it('hunks closer than 2x context are joined; equal texts give ""', () => {
    const a = 'a\nb\nc\nd\ne\nf\ng\nh\n';
    const b = 'A\nb\nc\nd\ne\nf\ng\nH\n';
    assert.equal(
      unifiedDiff(a, b, { oldLabel: 'x', newLabel: 'y' }),
      '--- x\n+++ y\n@@ -1,8 +1,8 @@\n-a\n+A\n b\n c\n d\n e\n f\n g\n-h\n+H\n',
    );
    assert.equal(
      unifiedDiff(a, b, { context: 1 }),
      '--- live\n+++ target\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n@@ -7,2 +7,2 @@\n g\n-h\n+H\n',
    );
    assert.equal(unifiedDiff(a, a), '');
    assert.equal(toYaml(null), '');
  });
});

describe('unified diff: hunks (jsdiff underneath)', () => {
  const rnd = (() => {
    let seed = 7;
    return (): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
  })();
  const text = (): string =>
    Array.from({ length: Math.floor(rnd() * 15) }, () => 'abc'[Math.floor(rnd() * 3)]!).join('\n');

  it('every diff applies: the hunks, headers and GNU-style ranges turn the old text into the new one', () => {
    for (let t = 0; t < 500; t++) {
      const a = text();
      const b = text();
      const patch = unifiedDiff(a, b, { context: t % 4 });
      const norm = (s: string): string => (s === '' || s.endsWith('\n') ? s : `${s}\n`);
      if (norm(a) === norm(b)) {
        assert.equal(patch, '');
        continue;
      }
      assert.equal(
        applyPatch(norm(a), patch),
        norm(b),
        `patch of ${JSON.stringify(a)} -> ${JSON.stringify(b)}`,
      );
    }
  });

  it("minimal on known cases: ABCABBA -> CBABAC has edit distance 5 (Myers' paper example)", () => {
    const patch = unifiedDiff([...'ABCABBA'].join('\n'), [...'CBABAC'].join('\n'));
    assert.equal(patch.split('\n').filter((l) => /^[-+][A-C]$/.test(l)).length, 5);
  });

  it('a single changed line is `@@ -l +l @@` (no count of 1), as GNU diff and kubectl diff print it', () => {
    assert.equal(
      unifiedDiff('a\nb\nc\n', 'a\nB\nc\n', { context: 0 }),
      '--- live\n+++ target\n@@ -2 +2 @@\n-b\n+B\n',
    );
    assert.equal(
      unifiedDiff('a\nc\n', 'a\nb\nc\n', { context: 0 }),
      '--- live\n+++ target\n@@ -1,0 +2 @@\n+b\n',
    );
  });

  it('a missing final newline is no difference', () => {
    assert.equal(unifiedDiff('a\nb', 'a\nb\n'), '');
  });

  it(`past ${MAX_EDITS} edits the middle is one replaced block between the common prefix and suffix`, () => {
    const n = MAX_EDITS + 10;
    const a = ['head1', 'head2', ...Array.from({ length: n }, (_, i) => `a${i}`), 'tail'].join('\n');
    const b = ['head1', 'head2', ...Array.from({ length: n }, (_, i) => `b${i}`), 'tail'].join('\n');
    const patch = unifiedDiff(a, b, { context: 1 });
    const lines = patch.split('\n');
    assert.equal(lines[2], `@@ -2,${n + 2} +2,${n + 2} @@`);
    assert.equal(lines[3], ' head2');
    assert.equal(lines[4], '-a0');
    assert.equal(lines[4 + n], '+b0');
    assert.equal(lines[4 + 2 * n], ' tail');
    assert.equal(applyPatch(`${a}\n`, patch), `${b}\n`);
  });
});
