/**
 * Durations as Argo CD reads `syncPolicy.retry.backoff`: a bare integer is seconds, anything else is Go's
 * `time.ParseDuration` syntax: an optional sign and a sequence of decimal numbers with units
 * ns, us (or µs), ms, s, m, h, e.g. "5s", "1m30s", "1.5h", "300ms". Returns milliseconds, or undefined
 * when the text is not a duration.
 */
const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

export function parseDuration(text: string): number | undefined {
  const s = text.trim();
  if (/^-?\d+$/.test(s)) return Number(s) * 1000;
  const m = /^([-+]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/.exec(s);
  if (!m) return s === '0' ? 0 : undefined;
  const sign = m[1] === '-' ? -1 : 1;
  let total = 0;
  for (const part of s.slice(m[1]!.length).matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) {
    total += Number(part[1]) * UNIT_MS[part[2]!]!;
  }
  return sign * total;
}

const GO_UNIT_NS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n, // U+00B5 micro sign
  μs: 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
const MAX_INT64 = (1n << 63n) - 1n;

/** Go's `time.quote`: a double-quoted string whose bytes outside printable ASCII are `\xNN`. */
function goQuote(text: string): string {
  let out = '"';
  for (const byte of Buffer.from(text, 'utf8')) {
    if (byte === 0x22 || byte === 0x5c) out += `\\${String.fromCharCode(byte)}`;
    else if (byte >= 0x20 && byte < 0x7f) out += String.fromCharCode(byte);
    else out += `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return `${out}"`;
}

/** Go's `leadingFraction`: the digits as an integer (digits past int64 are dropped) and 10^kept. */
function leadingFraction(digits: string): { f: bigint; scale: number } {
  let f = 0n;
  let scale = 1;
  for (const c of digits) {
    const y = f * 10n + BigInt(c);
    if (f > MAX_INT64 / 10n || y > 1n << 63n) break;
    f = y;
    scale *= 10;
  }
  return { f, scale };
}

/**
 * Go's `time.ParseDuration`, exactly (sync window durations): `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+`, or "0"
 * alone; no bare numbers. Returns nanoseconds, or throws an Error with Go's message:
 * `time: invalid duration "x"`, `time: missing unit in duration "10"`, `time: unknown unit "d" in
 * duration "1d"`. Values beyond int64 nanoseconds (about 292 years) are invalid, as in Go.
 */
export function parseGoDuration(orig: string): bigint {
  const invalid = (): Error => new Error(`time: invalid duration ${goQuote(orig)}`);
  let s = orig;
  let neg = false;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') throw invalid();
  let total = 0n;
  while (s !== '') {
    const num = /^(\d*)(?:\.(\d*))?/.exec(s)!;
    const [whole, intPart = '', fracPart] = num;
    if (!/^[0-9.]/.test(s)) throw invalid();
    if (intPart === '' && (fracPart === undefined || fracPart === '')) throw invalid();
    s = s.slice(whole.length);
    let i = 0;
    while (i < s.length && !/[0-9.]/.test(s[i]!)) i++;
    if (i === 0) throw new Error(`time: missing unit in duration ${goQuote(orig)}`);
    const unitText = s.slice(0, i);
    s = s.slice(i);
    const unit = GO_UNIT_NS[unitText];
    if (unit === undefined)
      throw new Error(`time: unknown unit ${goQuote(unitText)} in duration ${goQuote(orig)}`);
    let v = BigInt(intPart === '' ? '0' : intPart);
    if (v > (1n << 63n) / unit) throw invalid();
    v *= unit;
    const { f, scale } = leadingFraction(fracPart ?? '');
    if (f > 0n) {
      // Go scales the fraction in float64 (nanosecond-accurate up to hours) and truncates.
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > 1n << 63n) throw invalid();
    }
    total += v;
    if (total > 1n << 63n) throw invalid();
  }
  if (neg) return -total;
  if (total > MAX_INT64) throw invalid();
  return total;
}
