import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compareResource, diffLines, toYaml, unifiedDiff } from '../../src/diff/index.js';
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

describe('line diff (Myers)', () => {
  it('every edit script replays both sides and is minimal on known cases', () => {
    let seed = 7;
    const rnd = (): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    for (let t = 0; t < 500; t++) {
      const a = Array.from({ length: Math.floor(rnd() * 15) }, () => 'abc'[Math.floor(rnd() * 3)]!);
      const b = Array.from({ length: Math.floor(rnd() * 15) }, () => 'abc'[Math.floor(rnd() * 3)]!);
      const ops = diffLines(a, b);
      assert.deepEqual(
        ops.filter((o) => o.op !== '+').map((o) => o.line),
        a,
      );
      assert.deepEqual(
        ops.filter((o) => o.op !== '-').map((o) => o.line),
        b,
      );
    }
    // ABCABBA -> CBABAC has edit distance 5 (Myers' paper example).
    const ops = diffLines([...'ABCABBA'], [...'CBABAC']);
    assert.equal(ops.filter((o) => o.op !== ' ').length, 5);
  });
});
