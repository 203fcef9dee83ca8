/** Manifests are read as Kubernetes reads YAML (sigs.k8s.io/yaml over go-yaml v2: YAML 1.1 scalars). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseKubeObjects } from '../../src/util/yaml-docs.js';
import { parseObjects } from '../../src/source/render/objects.js';

const doc = `apiVersion: v1
kind: ConfigMap
metadata: {name: x}
data:
  no: n
  on: Off
  quoted: "n"
  octal: 0755
  hex: 0x1F
  bin: 0b101
  under: 1_000
  clock: 12:30
  date: 2001-12-14
  base: &b {a: 1}
  merged: {<<: *b, c: 2}
`;

describe('YAML as Kubernetes reads it', () => {
  for (const [name, parse] of [
    ['files (parseKubeObjects)', (t: string) => parseKubeObjects(t, 'f.yaml').map((o) => o.object)],
    ['tool output (parseObjects)', (t: string) => parseObjects(t)],
  ] as const) {
    it(`${name}: YAML 1.1 booleans (keys too), octal, hex, binary, underscores, merges; no base-60, timestamps kept`, () => {
      const [obj] = parse(doc) as { data: Record<string, unknown> }[];
      assert.deepEqual(obj!.data, {
        false: false,
        true: false,
        quoted: 'n',
        octal: 493,
        hex: 31,
        bin: 5,
        under: 1000,
        clock: '12:30',
        date: '2001-12-14',
        base: { a: 1 },
        merged: { a: 1, c: 2 },
      });
    });
  }
});
