/**
 * Time zones as Go's `time.LoadLocation` reads them, for sync windows (argo-cd
 * `pkg/apis/application/v1alpha1/types.go` `scheduleOffsetByTimeZone` and `SyncWindow.Validate`).
 *
 * - "" and "UTC" are UTC. "Local" is the controller's own zone: Argo CD's images set none, so UTC.
 * - Other names are IANA names, case-sensitive as Go reads them from the zoneinfo files ("europe/paris" is
 *   unknown to Go although ICU would take it). A name with ".." or a leading "/" or "\" is invalid.
 *   Links ("US/Eastern") are accepted. Offsets ("+01:00") and abbreviations ICU maps but Go's zoneinfo
 *   lacks are refused by both.
 * - `loadTimeZone` never throws: an unknown name is reported in `error` (Go's words), and callers then use
 *   UTC as Argo CD does ("Invalid time zone X specified. Using UTC as default time zone").
 * - `offsetSeconds(zone, at)` is the zone's UTC offset at an instant (Go's `time.Now().In(loc).Zone()`).
 */

export interface TimeZone {
  /** The name as written ("" when none was). */
  name: string;
  /** The IANA zone used for offsets: "UTC" for UTC, Local and unknown names. */
  iana: string;
  /** Set when the name is not a zone Go loads; `iana` is then "UTC". */
  error?: string;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(iana: string): Intl.DateTimeFormat {
  let f = formatters.get(iana);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: iana, timeZoneName: 'longOffset' });
    formatters.set(iana, f);
  }
  return f;
}

export function loadTimeZone(name: string): TimeZone {
  if (name === '' || name === 'UTC' || name === 'Local') return { name, iana: 'UTC' };
  const fail = (error: string): TimeZone => ({ name, iana: 'UTC', error });
  if (name.includes('..') || name.startsWith('/') || name.startsWith('\\')) {
    return fail('time: invalid location name');
  }
  let resolved: string;
  try {
    resolved = formatterOf(name).resolvedOptions().timeZone;
  } catch {
    return fail(`unknown time zone ${name}`);
  }
  // ICU ignores case; Go opens a file of that exact name.
  if (resolved !== name && resolved.toLowerCase() === name.toLowerCase()) {
    return fail(`unknown time zone ${name}`);
  }
  return { name, iana: name };
}

/** The zone's offset from UTC at `at`, in seconds (east positive). */
export function offsetSeconds(zone: TimeZone, at: Date): number {
  if (zone.iana === 'UTC') return 0;
  const part = formatterOf(zone.iana)
    .formatToParts(at)
    .find((p) => p.type === 'timeZoneName')?.value;
  const m = /^GMT(?:([+-])(\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(part ?? '');
  if (!m || !m[1]) return 0;
  const seconds = Number(m[2]) * 3600 + Number(m[3]) * 60 + Number(m[4] ?? 0);
  return m[1] === '-' ? -seconds : seconds;
}
