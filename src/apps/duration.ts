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
