import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalQuantity, parseQuantity } from '../../src/diff/index.js';

describe('Kubernetes quantities: canonical form as the API server stores it', () => {
  const cases: Array<[string | number, string]> = [
    ['1000m', '1'],
    ['1', '1'],
    [1, '1'],
    ['0.5', '500m'],
    [0.25, '250m'],
    ['1500m', '1500m'],
    ['1000', '1k'],
    ['1200', '1200'],
    ['1024Mi', '1Gi'],
    ['0.5Gi', '512Mi'],
    ['1536Mi', '1536Mi'],
    ['2048Ki', '2Mi'],
    ['1.5Ki', '1536'],
    ['512Ki', '512Ki'],
    ['0.5Ki', '512'],
    ['1e3', '1e3'],
    ['1.5e3', '1500'],
    ['129e6', '129e6'],
    ['128974848', '128974848'],
    ['0.1m', '100u'],
    ['0.0000000001', '1n'],
    ['-1000m', '-1'],
    ['0Gi', '0'],
    ['.5', '500m'],
    ['10Ei', '10Ei'],
  ];
  for (const [input, expected] of cases) {
    it(`${JSON.stringify(input)} -> ${expected}`, () => assert.equal(canonicalQuantity(input), expected));
  }

  it('non-quantities are returned unchanged', () => {
    for (const v of ['abc', '1Q', '', '1.2.3', 'Gi']) {
      assert.equal(parseQuantity(v), undefined, v);
      assert.equal(canonicalQuantity(v), v);
    }
  });
});
