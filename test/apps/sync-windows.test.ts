import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  activeWindowsLine,
  appSyncWindows,
  canSync,
  matchingWindows,
  parseSyncWindows,
  syncWindowRefusal,
  syncWindowsReport,
  validateSyncWindows,
  windowState,
} from '../../src/apps/index.js';
import type { SyncWindow, WindowApp } from '../../src/apps/index.js';
import { ExitCode, GitopsError, UsageError } from '../../src/common/index.js';

type Raw = Record<string, unknown>;
interface ArgoVectors {
  now: string;
  active: { name: string; windows: Raw[]; at: string; active?: number[]; error?: string }[];
  inactiveAllows: { name: string; windows: Raw[]; at: string; inactive: number[] }[];
  windowActive: { name: string; window: Raw; at: string; active: boolean }[];
  matchesApp: WindowApp;
  matches: { name: string; lists: Raw }[];
  canSync: { name: string; windows: Raw[]; manual: boolean; allowed: boolean; error: boolean }[];
}
const argo = JSON.parse(
  readFileSync(new URL('../fixtures/sync-windows/argo-cd-types-test.json', import.meta.url), 'utf8'),
) as ArgoVectors;

const windows = (raw: unknown): SyncWindow[] => parseSyncWindows(raw, { project: 'team' });
const at = (iso: string): Date => new Date(iso);
const app: WindowApp = {
  name: 'web',
  destination: { server: 'https://kubernetes.default.svc', namespace: 'prod' },
};

describe("sync windows: Argo CD's own test vectors (types_test.go)", () => {
  it('SyncWindows.active: which windows are active (UTC, fixed offsets, New York, Dhaka, bad input)', () => {
    for (const c of argo.active) {
      const ws = windows(c.windows);
      if (c.error) {
        assert.throws(() => ws.map((w) => windowState(w, at(c.at))), { message: c.error }, c.name);
        continue;
      }
      const active = ws.filter((w) => windowState(w, at(c.at)).active).map((w) => w.index);
      assert.deepEqual(active, c.active, c.name);
    }
  });

  it('SyncWindows.inactiveAllows', () => {
    for (const c of argo.inactiveAllows) {
      const inactive = windows(c.windows)
        .filter((w) => w.kind === 'allow' && !windowState(w, at(c.at)).active)
        .map((w) => w.index);
      assert.deepEqual(inactive, c.inactive, c.name);
    }
  });

  it('SyncWindow.active for allow and deny', () => {
    for (const c of argo.windowActive) {
      assert.equal(windowState(windows([c.window])[0]!, at(c.at)).active, c.active, c.name);
    }
  });

  it('SyncWindows.Matches, with and without andOperator; a window with no lists matches nothing', () => {
    for (const andOperator of [false, true]) {
      for (const c of argo.matches) {
        const ws = windows([
          { kind: 'allow', schedule: '* * * * *', duration: '1h', andOperator, ...c.lists },
        ]);
        assert.equal(matchingWindows(ws, argo.matchesApp).length, 1, `${c.name} and=${andOperator}`);
      }
      const none = windows([{ kind: 'allow', schedule: '* * * * *', duration: '1h', andOperator }]);
      assert.equal(matchingWindows(none, argo.matchesApp).length, 0);
    }
  });

  it('SyncWindows.CanSync for manual and automated syncs', () => {
    for (const c of argo.canSync) {
      const d = canSync(windows(c.windows), { manual: c.manual, now: at(argo.now) });
      assert.equal(d.allowed, c.allowed, c.name);
      assert.equal(d.error !== undefined, c.error, c.name);
    }
  });
});

describe('sync windows: matching', () => {
  const ws = (extra: Raw): SyncWindow[] =>
    windows([{ kind: 'deny', schedule: '* * * * *', duration: '1h', ...extra }]);

  it('OR by default: any list that matches; AND with andOperator: every list set must match', () => {
    const lists = { applications: ['web'], namespaces: ['staging'] };
    assert.equal(matchingWindows(ws(lists), app).length, 1);
    assert.equal(matchingWindows(ws({ ...lists, andOperator: true }), app).length, 0);
    assert.equal(
      matchingWindows(ws({ applications: ['w*'], namespaces: ['p*'], andOperator: true }), app).length,
      1,
    );
    assert.equal(
      matchingWindows(ws({ applications: ['web'], clusters: ['other'], andOperator: true }), app).length,
      0,
    );
  });

  it('clusters match the destination server or name; an unset name never matches, "*" matches an empty namespace', () => {
    assert.equal(matchingWindows(ws({ clusters: ['https://kubernetes.*'] }), app).length, 1);
    assert.equal(matchingWindows(ws({ clusters: ['in-cluster'] }), app).length, 0);
    const byName: WindowApp = { name: 'web', destination: { name: 'in-cluster', namespace: '' } };
    assert.equal(matchingWindows(ws({ clusters: ['in-*'] }), byName).length, 1);
    assert.equal(matchingWindows(ws({ namespaces: ['*'] }), byName).length, 1);
    assert.equal(matchingWindows(ws({ namespaces: ['?*'] }), byName).length, 0);
    assert.equal(matchingWindows(ws({ applications: ['{api,web}'] }), app).length, 1);
  });
});

describe('sync windows: when a window is open', () => {
  const deny = (schedule: string, duration: string, timeZone = ''): SyncWindow =>
    windows([{ kind: 'deny', schedule, duration, timeZone, applications: ['*'] }])[0]!;

  it('open strictly between start and start + duration', () => {
    const w = deny('0 22 * * *', '8h');
    assert.equal(windowState(w, at('2026-07-15T22:00:00Z')).active, false);
    assert.equal(windowState(w, at('2026-07-15T22:00:01Z')).active, true);
    assert.equal(windowState(w, at('2026-07-16T05:59:59Z')).active, true);
    assert.equal(windowState(w, at('2026-07-16T06:00:00Z')).active, false);
    const s = windowState(w, at('2026-07-16T01:00:00Z'));
    assert.deepEqual(
      [s.since?.toISOString(), s.until?.toISOString()],
      ['2026-07-15T22:00:00.000Z', '2026-07-16T06:00:00.000Z'],
    );
    assert.equal(windowState(w, at('2026-07-16T12:00:00Z')).next?.toISOString(), '2026-07-16T22:00:00.000Z');
  });

  it('a zero or negative duration is never open; a schedule that never fires is always open (Go zero time)', () => {
    assert.equal(windowState(deny('* * * * *', '0'), at('2026-07-15T10:00:30Z')).active, false);
    assert.equal(windowState(deny('* * * * *', '-1h'), at('2026-07-15T10:00:30Z')).active, false);
    const never = windowState(deny('0 0 30 2 *', '1h'), at('2026-07-15T10:00:30Z'));
    assert.equal(never.active, true);
    assert.equal(never.until, undefined);
  });

  it("time zones: the zone's offset at now; a fall-back night opens a window of the repeated hour twice", () => {
    const w = deny('0 2 * * *', '1h', 'Europe/Paris');
    // 2026-10-25: 03:00 CEST -> 02:00 CET at 01:00Z.
    assert.equal(windowState(w, at('2026-10-24T23:30:00Z')).active, false); // 01:30 CEST
    assert.equal(windowState(w, at('2026-10-25T00:30:00Z')).active, true); // 02:30 CEST
    assert.equal(windowState(w, at('2026-10-25T01:30:00Z')).active, true); // 02:30 CET
    assert.equal(windowState(w, at('2026-10-25T02:30:00Z')).active, false); // 03:30 CET
    // 2026-03-29: 02:00 CET -> 03:00 CEST at 01:00Z: 02:00-03:00 never happens, nor does the window.
    for (const t of ['2026-03-29T00:30:00Z', '2026-03-29T01:00:30Z', '2026-03-29T01:30:00Z']) {
      assert.equal(windowState(w, at(t)).active, false, t);
    }
    assert.equal(windowState(w, at('2026-03-30T00:30:00Z')).active, true); // 02:30 CEST
    // The offset is read at `offsetAt` (Argo CD: the real now), also for another time.
    const ny = deny('0 9 * * *', '1h', 'America/New_York');
    assert.equal(windowState(ny, at('2026-03-01T14:30:00Z')).active, true); // 09:30 EST
    assert.equal(windowState(ny, at('2026-03-01T14:30:00Z'), at('2026-07-01T00:00:00Z')).active, false);
  });

  it('an unknown time zone is UTC; a CRON_TZ prefix evaluates the schedule in that zone', () => {
    assert.equal(
      windowState(deny('0 9 * * *', '1h', 'Mars/Olympus'), at('2026-07-15T09:30:00Z')).active,
      true,
    );
    assert.equal(
      windowState(deny('0 9 * * *', '1h', 'europe/paris'), at('2026-07-15T09:30:00Z')).active,
      true,
    );
    assert.equal(
      windowState(deny('CRON_TZ=Asia/Tokyo 0 9 * * *', '1h'), at('2026-07-15T00:30:00Z')).active,
      true,
    );
  });

  it('weekday and month names, steps and lists behave as robfig reads them', () => {
    const weekdays = deny('0 8 * * mon-fri', '10h', 'Europe/Berlin');
    assert.equal(windowState(weekdays, at('2026-07-15T10:00:00Z')).active, true); // Wednesday 12:00 CEST
    assert.equal(windowState(weekdays, at('2026-07-18T10:00:00Z')).active, false); // Saturday
  });
});

describe('sync windows: CanSync beyond the vectors', () => {
  const w = (kind: string, schedule: string, duration: string, extra: Raw = {}): Raw => ({
    kind,
    schedule,
    duration,
    applications: ['*'],
    ...extra,
  });
  const now = at('2026-07-15T12:30:30Z');
  const decide = (raw: Raw[], manual: boolean, startedMinutesAgo?: number) =>
    canSync(windows(raw), {
      manual,
      now,
      ...(startedMinutesAgo !== undefined
        ? { operationStartedAt: new Date(now.getTime() - startedMinutesAgo * 60_000) }
        : {}),
    });
  const thisMinute = '30 12 * * *'; // opened 30 s ago
  const anHourAgo = '30 11 * * *';

  it('overlapping allow and deny: an active deny wins; manualSync on every active deny lets a manual sync through', () => {
    const both = [w('allow', '* * * * *', '1h'), w('deny', '0 12 * * *', '1h')];
    assert.equal(decide(both, true).allowed, false);
    assert.equal(decide(both, true).blockedBy, 'deny');
    const manualDeny = [w('allow', '* * * * *', '1h'), w('deny', '0 12 * * *', '1h', { manualSync: true })];
    assert.equal(decide(manualDeny, true).allowed, true);
    assert.equal(decide(manualDeny, false).allowed, false);
  });

  it('kinds other than allow and deny are inert', () => {
    assert.equal(decide([w('Deny', '* * * * *', '1h')], false).allowed, true);
  });

  it('syncOverrun on deny windows: a sync allowed when it started goes on; one that started denied does not', () => {
    const allow = w('allow', '* * * * *', '1h');
    assert.equal(
      decide([allow, w('deny', thisMinute, '15m', { syncOverrun: true })], false, 25).allowed,
      true,
    );
    assert.equal(
      decide([allow, w('deny', thisMinute, '15m', { syncOverrun: true })], false, 25).overrun,
      true,
    );
    assert.equal(decide([allow, w('deny', thisMinute, '15m')], false, 25).allowed, false);
    assert.equal(decide([allow, w('deny', thisMinute, '15m', { syncOverrun: true })], false).allowed, false);
    assert.equal(decide([w('deny', '* * * * *', '1h', { syncOverrun: true })], false, 5).allowed, false);
    // Started when an inactive allow blocked it.
    const blockedAtStart = [
      w('allow', '30 9 * * *', '30m'),
      w('deny', thisMinute, '1h', { syncOverrun: true }),
    ];
    assert.equal(decide(blockedAtStart, false, 60).allowed, false);
  });

  it('syncOverrun on allow windows: a sync started inside the window goes on after it closes', () => {
    assert.equal(decide([w('allow', anHourAgo, '30m', { syncOverrun: true })], false, 45).allowed, true);
    assert.equal(decide([w('allow', anHourAgo, '30m')], false, 45).allowed, false);
    // Then a deny without overrun opens: denied; a deny with overrun: allowed.
    const allowOverrun = w('allow', anHourAgo, '30m', { syncOverrun: true });
    assert.equal(decide([allowOverrun, w('deny', thisMinute, '1h')], false, 45).allowed, false);
    const allowPlain = w('allow', anHourAgo, '30m');
    assert.equal(
      decide([allowPlain, w('deny', thisMinute, '1h', { syncOverrun: true })], false, 45).allowed,
      true,
    );
  });

  it('an invalid window blocks with "invalid sync windows: ..."', () => {
    const d = decide([w('allow', '* * * * *', '1h'), w('deny', '@daily', '1h')], true);
    assert.equal(d.allowed, false);
    assert.equal(
      d.error,
      "invalid sync windows: cannot parse schedule '@daily': parser does not accept descriptors: @daily",
    );
  });
});

describe('sync windows: reading and validating a project', () => {
  it('a wrong shape is a one-line UsageError naming the project and the window index', () => {
    const cases: [unknown, string][] = [
      ['nope', 'AppProject "team": failed to read spec.syncWindows: must be a list of windows'],
      [
        [null],
        'AppProject "team": failed to read spec.syncWindows[0]: must be an object (kind, schedule, duration, ...)',
      ],
      [
        [{ kind: 'deny' }, { kind: 'deny', applications: 'web' }],
        'AppProject "team": failed to read spec.syncWindows[1].applications: must be a list of strings',
      ],
      [
        [{ manualSync: 'yes' }],
        'AppProject "team": failed to read spec.syncWindows[0].manualSync: must be true or false, not "yes"',
      ],
      [
        [{ duration: 3600 }],
        'AppProject "team": failed to read spec.syncWindows[0].duration: must be a string, not 3600',
      ],
    ];
    for (const [raw, message] of cases) {
      assert.throws(
        () => windows(raw),
        (err: unknown) => err instanceof UsageError && err.message === message,
      );
    }
    assert.deepEqual(windows(undefined), []);
    assert.deepEqual(windows(null), []);
  });

  it("lists what Argo CD's API server refuses, in its words", () => {
    const base = { kind: 'allow', schedule: '0 9 * * *', duration: '1h', applications: ['web'] };
    const problems = validateSyncWindows(
      windows([
        base,
        { ...base, manualSync: true, description: 'same identity' },
        { ...base, kind: 'block' },
        { ...base, schedule: '* * *' },
        { ...base, duration: '1d' },
        { ...base, schedule: '0 10 * * *', description: 'x'.repeat(256) },
        { kind: 'deny', schedule: '0 9 * * *', duration: '2h' },
        { ...base, timeZone: 'Mars/Olympus', manualsync: true },
      ]),
    );
    assert.deepEqual(problems, [
      "syncWindows[1]: sync window with kind 'allow', schedule '0 9 * * *', and duration '1h' already exists (duplicate detected)",
      "syncWindows[2]: kind 'block' mismatch: can only be allow or deny",
      "syncWindows[3]: cannot parse schedule '* * *': expected exactly 5 fields, found 3: [* * *]",
      'syncWindows[4]: cannot parse duration \'1d\': time: unknown unit "d" in duration "1d"',
      'syncWindows[5]: description must not exceed 255 characters',
      "syncWindows[6]: window 'deny':'0 9 * * *':'2h' requires one of application, cluster or namespace",
      'syncWindows[7]: unknown field "manualsync" (the API server drops it, so it has no effect)',
    ]);
  });
});

describe('sync windows: the integration door (appSyncWindows)', () => {
  const raw = [
    { kind: 'allow', schedule: '0 8 * * *', duration: '10h', applications: ['*'], manualSync: true },
    {
      kind: 'deny',
      schedule: '0 12 * * *',
      duration: '1h',
      namespaces: ['prod'],
      description: 'lunch freeze',
    },
    { kind: 'deny', schedule: '0 0 * * *', duration: '1h', applications: ['other'] },
    { kind: 'deny', schedule: 'bad', duration: '1h', applications: ['nobody'] },
  ];

  it('a blocked manual sync names the window, the project and when it closes; exit 2', () => {
    const r = appSyncWindows(raw, app, at('2026-07-15T12:30:00Z'), { project: 'team' });
    assert.deepEqual(
      r.assigned.map((s) => [s.window.index, s.active]),
      [
        [0, true],
        [1, true],
      ],
    );
    assert.equal(
      r.blockedMessage,
      `blocked by sync window: AppProject "team" deny window active: deny '0 12 * * *' 1h (syncWindows[1], "lunch freeze"), open until 2026-07-15T13:00:00Z`,
    );
    const refusal = syncWindowRefusal(app, r);
    assert.ok(refusal instanceof GitopsError);
    assert.equal(refusal.exitCode, ExitCode.FAILURE);
    assert.match(
      refusal.message,
      /^app "web": failed to sync: blocked by sync window: AppProject "team" deny window active/,
    );
    assert.equal(
      activeWindowsLine(syncWindowsReport(r)),
      `sync windows (sync blocked): allow '0 8 * * *' 10h (syncWindows[0]), open until 2026-07-15T18:00:00Z; deny '0 12 * * *' 1h (syncWindows[1], "lunch freeze"), open until 2026-07-15T13:00:00Z`,
    );
    assert.deepEqual(r.warnings, [
      'AppProject "team": syncWindows[3]: cannot parse schedule \'bad\': expected exactly 5 fields, found 1: [bad]',
    ]);
  });

  it('outside every allow window: manualSync lets the CLI through, an automated sync is blocked', () => {
    const evening = at('2026-07-15T20:00:00Z');
    const manual = appSyncWindows(raw, app, evening, { project: 'team' });
    assert.equal(manual.blockedMessage, undefined);
    assert.equal(syncWindowRefusal(app, manual), undefined);
    assert.equal(activeWindowsLine(syncWindowsReport(manual)), 'sync windows (sync allowed): none active');
    const auto = appSyncWindows(raw, app, evening, { project: 'team', manual: false });
    assert.equal(
      auto.blockedMessage,
      `blocked by sync window: AppProject "team" has allow windows and none is open: allow '0 8 * * *' 10h (syncWindows[0]), opens 2026-07-16T08:00:00Z`,
    );
  });

  it('an invalid window that applies to the app blocks it; no window for the app: no header line', () => {
    const r = appSyncWindows(
      [{ kind: 'deny', schedule: '* * * * *', duration: '5x', applications: ['web'] }],
      app,
      at('2026-07-15T12:00:00Z'),
      {
        project: 'team',
      },
    );
    assert.equal(
      r.blockedMessage,
      `blocked by sync window: AppProject "team": invalid sync windows: cannot parse duration '5x': time: unknown unit "x" in duration "5x"`,
    );
    assert.equal(
      activeWindowsLine(syncWindowsReport(r)),
      `sync windows: blocked by sync window: AppProject "team": invalid sync windows: cannot parse duration '5x': time: unknown unit "x" in duration "5x"`,
    );
    const none = appSyncWindows(raw.slice(2), app, at('2026-07-15T00:30:00Z'), { project: 'team' });
    assert.equal(none.blockedMessage, undefined);
    assert.equal(activeWindowsLine(syncWindowsReport(none)), undefined);
  });

  it('warns about an unknown time zone as Argo CD logs it', () => {
    const r = appSyncWindows(
      [
        {
          kind: 'deny',
          schedule: '0 9 * * *',
          duration: '1h',
          timeZone: 'Mars/Olympus',
          applications: ['web'],
        },
      ],
      app,
      at('2026-07-15T09:30:00Z'),
      {
        project: 'team',
      },
    );
    assert.deepEqual(r.warnings, [
      'AppProject "team": syncWindows[0]: Invalid time zone Mars/Olympus specified. Using UTC as default time zone',
    ]);
    assert.equal(r.decision.allowed, false);
  });
});
