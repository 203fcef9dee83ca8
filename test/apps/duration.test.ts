import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parseGoDuration } from '../../src/apps/index.js';

const vectors = JSON.parse(
  readFileSync(new URL('../fixtures/sync-windows/go-parse-duration.json', import.meta.url), 'utf8'),
) as { ok: { in: string; ns: string }[]; errors: { in: string; message: string }[] };

describe("Go's time.ParseDuration (sync window durations)", () => {
  it("parses Go's own vectors to the nanosecond", () => {
    for (const v of vectors.ok) assert.equal(parseGoDuration(v.in), BigInt(v.ns), v.in);
  });

  it("refuses what Go refuses, in Go's words (bare numbers, unknown units, overflow)", () => {
    for (const v of vectors.errors) assert.throws(() => parseGoDuration(v.in), { message: v.message }, v.in);
  });
});
