/**
 * Cron schedules as Argo CD's sync windows read them: robfig/cron v3 (bc59245, the version argo-cd 3.5
 * pins) with `cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow)` (argo-cd
 * `pkg/apis/application/v1alpha1/types.go`), and `SpecSchedule.Next` (robfig `spec.go`).
 *
 * `parseCron(spec)` follows robfig `parser.go` and throws its messages:
 * - exactly 5 whitespace-separated fields (minute 0-59, hour 0-23, day of month 1-31, month 1-12 or
 *   jan-dec, day of week 0-6 or sun-sat, names in any case); no seconds field;
 * - no descriptors: Argo CD's parser lacks the `Descriptor` option, so `@hourly`, `@daily`, `@every 1h`
 *   are refused ("parser does not accept descriptors: @hourly") although robfig's *standard* parser
 *   (`ParseStandard`) and cron-parser take them;
 * - each field is a comma list (empty items are skipped, so "1,,2" is "1,2") of `*`, `?`, `N`, `N-M`,
 *   each with an optional `/step`; `N/step` means `N-max/step`; `*-5` is `*` (robfig ignores what follows
 *   a star); no `L`, `W`, `#`, `H`; day of week 7 is out of range;
 * - an optional `TZ=<zone> ` or `CRON_TZ=<zone> ` prefix evaluates the schedule in that zone.
 *
 * `nextAfter(schedule, t)` is robfig's `Next`: the first whole minute matching the schedule strictly
 * after `t` truncated to the second; `undefined` (Go's zero time) when none comes within five years
 * (`0 0 30 2 *`, or a field that selects nothing such as ","). Days: when the day-of-month or the
 * day-of-week field contains a star (`*`, `?`, `*\/1`, but not `*\/2`), a day must match both; otherwise
 * either.
 *
 * The stepping itself is cron-parser's (installed for this); this module hands it a normalized expression
 * (explicit lists) because its grammar and day rule differ from robfig's (see `cronParserFields`).
 */
import { CronExpressionParser, type CronExpression } from 'cron-parser';
import { loadTimeZone, offsetSeconds, type TimeZone } from './time-zone.js';

export interface CronSchedule {
  /** The spec as written. */
  spec: string;
  minutes: number[];
  hours: number[];
  daysOfMonth: number[];
  months: number[];
  daysOfWeek: number[];
  /** robfig's starBit on the day fields. */
  domStar: boolean;
  dowStar: boolean;
  /** The `TZ=`/`CRON_TZ=` prefix's zone; absent: the zone of the time given (Argo CD passes UTC). */
  zone?: TimeZone;
}

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const MONTH_NAMES = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DOW_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const BOUNDS: Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: Object.fromEntries(MONTH_NAMES.map((n, i) => [n, i + 1])) },
  { min: 0, max: 6, names: Object.fromEntries(DOW_NAMES.map((n, i) => [n, i])) },
];

/** Go's `strconv.Atoi` as robfig's `mustParseInt` reports it. */
function mustParseInt(expr: string): bigint {
  if (!/^[+-]?\d+$/.test(expr)) {
    throw new Error(
      `failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`,
    );
  }
  const num = BigInt(expr);
  if (num > (1n << 63n) - 1n || num < -(1n << 63n)) {
    throw new Error(
      `failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: value out of range`,
    );
  }
  if (num < 0n) throw new Error(`negative number (${num}) not allowed: ${expr}`);
  return num;
}

function parseIntOrName(expr: string, r: Bounds): bigint {
  const named = r.names?.[expr.toLowerCase()];
  return named !== undefined ? BigInt(named) : mustParseInt(expr);
}

/** robfig `getRange`: the values of one comma item, and whether it carries the star bit. */
function getRange(expr: string, r: Bounds, into: Set<number>): boolean {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0]!.split('-');
  const singleDigit = lowAndHigh.length === 1;
  let start: bigint;
  let end: bigint;
  let star = false;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = BigInt(r.min);
    end = BigInt(r.max);
    star = true;
  } else {
    start = parseIntOrName(lowAndHigh[0]!, r);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1]!, r);
    else throw new Error(`too many hyphens: ${expr}`);
  }
  let step = 1n;
  if (rangeAndStep.length === 2) {
    step = mustParseInt(rangeAndStep[1]!);
    if (singleDigit) end = BigInt(r.max);
    if (step > 1n) star = false;
  } else if (rangeAndStep.length > 2) {
    throw new Error(`too many slashes: ${expr}`);
  }
  if (start < BigInt(r.min))
    throw new Error(`beginning of range (${start}) below minimum (${r.min}): ${expr}`);
  if (end > BigInt(r.max)) throw new Error(`end of range (${end}) above maximum (${r.max}): ${expr}`);
  if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0n) throw new Error(`step of range should be a positive number: ${expr}`);
  for (let i = Number(start); i <= Number(end); i += Number(step)) into.add(i);
  return star;
}

function getField(field: string, r: Bounds): { values: number[]; star: boolean } {
  const values = new Set<number>();
  let star = false;
  for (const expr of field.split(',')) {
    if (expr === '') continue; // strings.FieldsFunc drops empty items
    if (getRange(expr, r, values)) star = true;
  }
  return { values: [...values].sort((a, b) => a - b), star };
}

/** Go's `strings.Fields` separators (Unicode White_Space). */
const GO_SPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

/** robfig `Parser.Parse` with Argo CD's options; throws robfig's message. */
export function parseCron(spec: string): CronSchedule {
  if (spec.length === 0) throw new Error('empty spec string');
  let rest = spec;
  let zone: TimeZone | undefined;
  if (rest.startsWith('TZ=') || rest.startsWith('CRON_TZ=')) {
    const i = rest.indexOf(' ');
    const eq = rest.indexOf('=');
    // robfig slices spec[eq+1:i] and panics without a space; we refuse instead.
    if (i < 0) throw new Error(`provided bad location ${rest.slice(eq + 1)}: no schedule follows it`);
    const name = rest.slice(eq + 1, i);
    zone = loadTimeZone(name);
    if (zone.error) throw new Error(`provided bad location ${name}: ${zone.error}`);
    rest = rest.slice(i).trim();
  }
  if (rest.startsWith('@')) throw new Error(`parser does not accept descriptors: ${rest}`);
  const fields = rest.split(GO_SPACE).filter((f) => f !== '');
  if (fields.length !== 5) {
    throw new Error(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  }
  const [minute, hour, dom, month, dow] = fields.map((f, i) => getField(f, BOUNDS[i]!));
  return {
    spec,
    minutes: minute!.values,
    hours: hour!.values,
    daysOfMonth: dom!.values,
    months: month!.values,
    daysOfWeek: dow!.values,
    domStar: dom!.star,
    dowStar: dow!.star,
    ...(zone ? { zone } : {}),
  };
}

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * The five fields for cron-parser, or undefined when the schedule never fires. cron-parser differs from
 * robfig here, so nothing of the written spec is passed through:
 * - it takes `@hourly`, six fields, `L`, `H`, `#`, day of week 7 (robfig, as Argo CD calls it, does not:
 *   `parseCron` has refused them already);
 * - its day rule looks at the field text: `*\/1` in the day of month is a restriction to cron-parser
 *   (so "either day field" applies) but a star to robfig (so "both"); explicit lists and a lone `*` on the
 *   side robfig ignores say the same thing to both;
 * - it throws on days no selected month has (`0 0 30 2 *`) and on empty lists, where robfig's `Next`
 *   returns the zero time after five years: we return undefined.
 */
export function cronParserFields(s: CronSchedule): string | undefined {
  if ([s.minutes, s.hours, s.months].some((v) => v.length === 0)) return undefined;
  let dom: string;
  let dow: string;
  if (s.domStar || s.dowStar) {
    // Both must match; a star field matches every day, so only the other one restricts.
    dom = s.domStar ? '*' : s.daysOfMonth.join(',');
    dow = s.dowStar ? '*' : s.daysOfWeek.join(',');
    if (dom === '' || dow === '') return undefined;
    if (dow === '*' && !s.months.some((m) => s.daysOfMonth.some((d) => d <= DAYS_IN_MONTH[m - 1]!))) {
      return undefined;
    }
  } else if (s.daysOfMonth.length === 31 || s.daysOfWeek.length === 7) {
    // Either may match, and one matches every day.
    dom = '*';
    dow = '*';
  } else if (s.daysOfMonth.length === 0 || s.daysOfWeek.length === 0) {
    if (s.daysOfMonth.length === 0 && s.daysOfWeek.length === 0) return undefined;
    dom = s.daysOfMonth.length === 0 ? '*' : s.daysOfMonth.join(',');
    dow = s.daysOfWeek.length === 0 ? '*' : s.daysOfWeek.join(',');
    if (dow === '*' && !s.months.some((m) => s.daysOfMonth.some((d) => d <= DAYS_IN_MONTH[m - 1]!))) {
      return undefined;
    }
  } else {
    // Both restricted: cron-parser then takes either, as robfig.
    dom = s.daysOfMonth.join(',');
    dow = s.daysOfWeek.join(',');
  }
  return `${s.minutes.join(',')} ${s.hours.join(',')} ${dom} ${s.months.join(',')} ${dow}`;
}

const wallFormats = new Map<string, Intl.DateTimeFormat>();

/** Wall-clock fields of an instant in a zone. */
function wallClock(
  at: Date,
  iana: string,
): { y: number; mo: number; d: number; h: number; mi: number; wd: number } {
  if (iana === 'UTC') {
    return {
      y: at.getUTCFullYear(),
      mo: at.getUTCMonth() + 1,
      d: at.getUTCDate(),
      h: at.getUTCHours(),
      mi: at.getUTCMinutes(),
      wd: at.getUTCDay(),
    };
  }
  let format = wallFormats.get(iana);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: iana,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      weekday: 'short',
    });
    wallFormats.set(iana, format);
  }
  const parts = format.formatToParts(at);
  const get = (type: string): string => parts.find((p) => p.type === type)?.value ?? '';
  return {
    y: Number(get('year')),
    mo: Number(get('month')),
    d: Number(get('day')),
    h: Number(get('hour')),
    mi: Number(get('minute')),
    wd: DOW_NAMES.indexOf(get('weekday').toLowerCase()),
  };
}

function matchesWallClock(s: CronSchedule, w: ReturnType<typeof wallClock>): boolean {
  const dom = s.daysOfMonth.includes(w.d);
  const dow = s.daysOfWeek.includes(w.wd);
  const day = s.domStar || s.dowStar ? dom && dow : dom || dow;
  return s.minutes.includes(w.mi) && s.hours.includes(w.h) && s.months.includes(w.mo) && day;
}

/**
 * robfig `SpecSchedule.Next` for a time in `zone` (the schedule's own `TZ=` zone wins): the first match
 * strictly after `t` truncated to the second, or undefined (Go's zero time) when none comes before the
 * end of the fifth year after `t`'s. In a zone with daylight saving time robfig steps real minutes and
 * hours, so a match is an instant whose wall clock matches: none in a spring-forward gap, two in a
 * fall-back hour.
 */
export function nextAfter(s: CronSchedule, t: Date, zone = 'UTC'): Date | undefined {
  const expression = cronParserFields(s);
  if (expression === undefined) return undefined;
  const iana = s.zone?.iana ?? zone;
  const from = new Date(Math.floor(t.getTime() / 1000) * 1000);
  const yearLimit = wallClock(new Date(from.getTime() + 1000), iana).y + 5;
  const cron = expressionOf(expression, iana);
  cron.reset(from);
  let found: Date | undefined;
  // cron-parser moves a time that falls in a DST gap to the next valid hour; robfig skips that day (its
  // hour loop steps over the missing hour). A candidate whose wall clock does not match is skipped.
  for (let i = 0; i < 1000 && !found; i++) {
    const candidate = cron.next().toDate();
    const wall = wallClock(candidate, iana);
    if (wall.y > yearLimit) return undefined;
    if (iana === 'UTC' || matchesWallClock(s, wall)) found = candidate;
  }
  if (found && iana !== 'UTC') found = repeatedHourMatch(s, from, found, iana) ?? found;
  return found;
}

/** Parsed cron-parser expressions by (expression, zone), reset to each start time: parsing is the cost. */
const expressions = new Map<string, CronExpression>();

function expressionOf(expression: string, iana: string): CronExpression {
  const key = `${iana} ${expression}`;
  let cron = expressions.get(key);
  if (!cron) {
    cron = CronExpressionParser.parse(expression, { tz: iana });
    if (expressions.size >= 1000) expressions.clear();
    expressions.set(key, cron);
  }
  return cron;
}

const HOUR_MS = 3_600_000;

/**
 * cron-parser fires once in a fall-back hour (the first pass); robfig also fires on the second pass when
 * `from` lies between the two. Such a match is at most a few hours after `from` and before `found`, right
 * after a transition where the offset drops: the minutes of that stretch are checked one by one.
 */
function repeatedHourMatch(s: CronSchedule, from: Date, found: Date, iana: string): Date | undefined {
  const zone = loadTimeZone(iana);
  const before = offsetSeconds(zone, new Date(from.getTime() - 3 * HOUR_MS));
  const after = offsetSeconds(zone, new Date(from.getTime() + 3 * HOUR_MS));
  if (after >= before) return undefined;
  const end = Math.min(found.getTime(), from.getTime() + 3 * HOUR_MS);
  for (let m = Math.floor(from.getTime() / 60_000 + 1) * 60_000; m < end; m += 60_000) {
    if (matchesWallClock(s, wallClock(new Date(m), iana))) return new Date(m);
  }
  return undefined;
}
