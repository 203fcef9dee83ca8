import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { CronExpressionParser } from 'cron-parser';
import { nextAfter, parseCron, type CronSchedule } from '../../src/apps/cron.js';

interface RobfigVectors {
  next: { from: string; spec: string; next: string | null; zone?: string }[];
  activation: { at: string; spec: string; fires: boolean }[];
}
const vectors = JSON.parse(
  readFileSync(new URL('../fixtures/sync-windows/robfig-spec-test.json', import.meta.url), 'utf8'),
) as RobfigVectors;

const iso = (d: Date | undefined): string | null => (d ? d.toISOString().replace('.000Z', 'Z') : null);

describe('cron schedules as robfig/cron parses them for Argo CD', () => {
  it("robfig's own Next vectors (spec_test.go TestNext), DST in New York and Sao Paulo included", () => {
    for (const v of vectors.next) {
      const got = iso(nextAfter(parseCron(v.spec), new Date(v.from), v.zone ?? 'UTC'));
      assert.equal(got, v.next, `${v.spec} after ${v.from}${v.zone ? ` in ${v.zone}` : ''}`);
    }
  });

  it("robfig's activation vectors (TestActivation); descriptors are refused as Argo CD's parser has no Descriptor option", () => {
    for (const v of vectors.activation) {
      if (v.spec.startsWith('@')) {
        assert.throws(() => parseCron(v.spec), { message: `parser does not accept descriptors: ${v.spec}` });
        continue;
      }
      const at = new Date(v.at);
      const fires = nextAfter(parseCron(v.spec), new Date(at.getTime() - 1000))?.getTime() === at.getTime();
      assert.equal(fires, v.fires, `${v.spec} at ${v.at}`);
    }
  });

  it("refuses what robfig refuses, in robfig's words", () => {
    const cases: [string, string][] = [
      ['', 'empty spec string'],
      ['* * *', 'expected exactly 5 fields, found 3: [* * *]'],
      ['0 * * * * *', 'expected exactly 5 fields, found 6: [0 * * * * *]'],
      ['@hourly', 'parser does not accept descriptors: @hourly'],
      ['@daily', 'parser does not accept descriptors: @daily'],
      ['@every 1h', 'parser does not accept descriptors: @every 1h'],
      ['TZ=UTC @daily', 'parser does not accept descriptors: @daily'],
      ['* 10 * * 7', 'end of range (7) above maximum (6): 7'],
      ['60 * * * *', 'end of range (60) above maximum (59): 60'],
      ['* 24 * * *', 'end of range (24) above maximum (23): 24'],
      ['* * 0 * *', 'beginning of range (0) below minimum (1): 0'],
      ['* * * 13 *', 'end of range (13) above maximum (12): 13'],
      ['5-1 * * * *', 'beginning of range (5) beyond end of range (1): 5-1'],
      ['*/0 * * * *', 'step of range should be a positive number: */0'],
      ['1-2-3 * * * *', 'too many hyphens: 1-2-3'],
      ['*/2/3 * * * *', 'too many slashes: */2/3'],
      ['x * * * *', 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'],
      ['*/-1 * * * *', 'negative number (-1) not allowed: -1'],
      ['L * * * *', 'failed to parse int from L: strconv.Atoi: parsing "L": invalid syntax'],
      ['* * L * *', 'failed to parse int from L: strconv.Atoi: parsing "L": invalid syntax'],
      ['H * * * *', 'failed to parse int from H: strconv.Atoi: parsing "H": invalid syntax'],
      ['* * * * 1#2', 'failed to parse int from 1#2: strconv.Atoi: parsing "1#2": invalid syntax'],
      ['* * * * XYZ', 'failed to parse int from XYZ: strconv.Atoi: parsing "XYZ": invalid syntax'],
      ['invalid-cron-schedule', 'expected exactly 5 fields, found 1: [invalid-cron-schedule]'],
      ['TZ=Mars/Olympus 0 * * * *', 'provided bad location Mars/Olympus: unknown time zone Mars/Olympus'],
    ];
    for (const [spec, message] of cases) assert.throws(() => parseCron(spec), { message }, spec);
  });

  it('takes what robfig takes and cron-parser may not: names in any case, "?", empty list items, "*-5", TZ prefixes', () => {
    assert.deepEqual(parseCron('0 0 * JAN-Mar mon-FRI').months, [1, 2, 3]);
    assert.deepEqual(parseCron('0 0 ? * Sun').daysOfWeek, [0]);
    assert.deepEqual(parseCron('1,,2 * * * *').minutes, [1, 2]);
    assert.equal(parseCron('*-5 * * * *').minutes.length, 60);
    assert.deepEqual(parseCron('5/20 * * * *').minutes, [5, 25, 45]);
    assert.deepEqual(parseCron('+5 * * * *').minutes, [5]);
    assert.equal(parseCron('CRON_TZ=Europe/Paris 0 9 * * *').zone?.iana, 'Europe/Paris');
    assert.throws(() => CronExpressionParser.parse('1,,2 * * * *')); // the reason we hand cron-parser lists
  });

  it('day rule: a star (also */1) in one day field means both must match; */2 is no star', () => {
    const from = new Date('2026-01-02T09:00:00Z'); // a Friday
    // robfig: dom "*/1" carries the star bit, so only Mondays; cron-parser alone gives Saturday the 3rd.
    assert.equal(iso(nextAfter(parseCron('0 0 */1 * 1'), from)), '2026-01-05T00:00:00Z');
    assert.equal(
      CronExpressionParser.parse('0 0 */1 * 1', { currentDate: from, tz: 'UTC' }).next().toISOString(),
      '2026-01-03T00:00:00.000Z',
    );
    // "*/2" has no star bit: odd days or Mondays.
    assert.equal(iso(nextAfter(parseCron('0 0 */2 * 1'), from)), '2026-01-03T00:00:00Z');
    assert.equal(iso(nextAfter(parseCron('0 0 10 * 1'), from)), '2026-01-05T00:00:00Z');
    assert.equal(iso(nextAfter(parseCron('0 0 10 * *'), from)), '2026-01-10T00:00:00Z');
    assert.equal(iso(nextAfter(parseCron('0 0 1-31 * 1'), from)), '2026-01-03T00:00:00Z');
  });

  it("never firing is Go's zero time (undefined), where cron-parser throws", () => {
    const from = new Date('2026-01-01T00:00:00Z');
    assert.equal(nextAfter(parseCron('0 0 30 2 *'), from), undefined);
    assert.equal(nextAfter(parseCron('0 0 31 4,6 *'), from), undefined);
    assert.equal(nextAfter(parseCron(', * * * *'), from), undefined);
    assert.throws(() => CronExpressionParser.parse('0 0 30 2 *'));
    // Feb 29 beyond five years: robfig gives up (2097 -> 2104 skips 2100).
    assert.equal(nextAfter(parseCron('0 0 29 2 *'), new Date('2097-03-01T00:00:00Z')), undefined);
    assert.equal(iso(nextAfter(parseCron('0 0 29 2 *'), from)), '2028-02-29T00:00:00Z');
    // Either day field: the 30th of February or a Monday of February still fires.
    assert.equal(iso(nextAfter(parseCron('0 0 30 2 1'), from)), '2026-02-02T00:00:00Z');
  });

  it('strictly after the time truncated to the second', () => {
    const s = parseCron('0 10 * * *');
    assert.equal(iso(nextAfter(s, new Date('2026-01-01T10:00:00.000Z'))), '2026-01-02T10:00:00Z');
    assert.equal(iso(nextAfter(s, new Date('2026-01-01T10:00:00.700Z'))), '2026-01-02T10:00:00Z');
    assert.equal(iso(nextAfter(s, new Date('2026-01-01T09:59:59.999Z'))), '2026-01-01T10:00:00Z');
  });

  it('CRON_TZ in a fall-back night fires on both passes of the repeated hour, as robfig (cron-parser fires once)', () => {
    const s = parseCron('CRON_TZ=Europe/Paris 30 2 * * *');
    const first = nextAfter(s, new Date('2026-10-24T12:00:00Z'));
    assert.equal(iso(first), '2026-10-25T00:30:00Z'); // 02:30 CEST
    assert.equal(iso(nextAfter(s, first!)), '2026-10-25T01:30:00Z'); // 02:30 CET
    assert.equal(iso(nextAfter(s, new Date('2026-10-25T01:30:00Z'))), '2026-10-26T01:30:00Z');
    // Spring forward: 02:30 does not exist on March 29; robfig skips the day, cron-parser would say 03:30.
    assert.equal(iso(nextAfter(s, new Date('2026-03-28T12:00:00Z'))), '2026-03-30T00:30:00Z');
  });

  it('agrees with a direct reading of robfig Next on random schedules (UTC)', () => {
    let seed = 20;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const item = (min: number, max: number): string => {
      switch (rand(6)) {
        case 0:
          return '*';
        case 1:
          return `*/${1 + rand(4)}`;
        case 2: {
          const a = min + rand(max - min + 1);
          return `${a}-${Math.min(max, a + rand(5))}`;
        }
        case 3:
          return `${min + rand(max - min + 1)}/${1 + rand(7)}`;
        default:
          return `${min + rand(max - min + 1)},${min + rand(max - min + 1)}`;
      }
    };
    for (let i = 0; i < 300; i++) {
      const spec = [item(0, 59), item(0, 23), item(1, 31), item(1, 12), item(0, 6)].join(' ');
      const s = parseCron(spec);
      const from = new Date(Date.UTC(2026, rand(12), 1 + rand(28), rand(24), rand(60), rand(60)));
      assert.equal(
        iso(nextAfter(s, from)),
        iso(referenceNext(s, from)),
        `${spec} after ${from.toISOString()}`,
      );
    }
  });
});

/** robfig `SpecSchedule.Next` in UTC read directly: day by day, then hour, then minute. */
function referenceNext(s: CronSchedule, t: Date): Date | undefined {
  const start = Math.floor(t.getTime() / 1000) * 1000 + 1000;
  const limitYear = new Date(start).getUTCFullYear() + 5;
  const day0 = Date.UTC(
    new Date(start).getUTCFullYear(),
    new Date(start).getUTCMonth(),
    new Date(start).getUTCDate(),
  );
  for (let day = day0; new Date(day).getUTCFullYear() <= limitYear; day += 86_400_000) {
    const d = new Date(day);
    const dom = s.daysOfMonth.includes(d.getUTCDate());
    const dow = s.daysOfWeek.includes(d.getUTCDay());
    if (!s.months.includes(d.getUTCMonth() + 1) || !(s.domStar || s.dowStar ? dom && dow : dom || dow))
      continue;
    for (const h of s.hours) {
      for (const m of s.minutes) {
        const at = day + h * 3_600_000 + m * 60_000;
        if (at >= start) return new Date(at);
      }
    }
  }
  return undefined;
}
