/** An app's project sync windows in a run: the verdict the operation processor and the printers use. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { adHocApplication, type Application } from '../../../src/apps/index.js';
import type { AppReport, RunReport } from '../../../src/controller/index.js';
import { appWindowsVerdict } from '../../../src/controller/refresh/windows.js';
import { diffDocument, renderDiffText } from '../../../src/output/diff.js';
import { syncJson, syncText } from '../../../src/output/sync.js';
import { ExitCode, GitopsError } from '../../../src/common/index.js';

const app: Application = {
  ...adHocApplication({
    repo: 'https://git.example/repo.git',
    path: 'web',
    name: 'web',
    destNamespace: 'prod',
  }),
};
const freeze = {
  kind: 'deny',
  schedule: '0 22 * * *',
  duration: '8h',
  timeZone: 'Europe/Paris',
  namespaces: ['prod'],
  description: 'nightly freeze',
};
const project = (syncWindows: unknown) => ({
  name: 'team',
  origin: 'projects.yaml (document 1)',
  syncWindows,
});
const night = new Date('2026-07-15T21:30:00Z'); // 23:30 in Paris
const noon = new Date('2026-07-15T10:00:00Z');

function reportOf(a: Partial<AppReport>): RunReport {
  return {
    apps: [
      {
        app,
        destination: { server: 'https://kubernetes.default.svc', namespace: 'prod', context: 'kind' },
        comparison: {
          revision: 'a'.repeat(40),
          resources: [],
          sync: 'Synced',
          health: { status: 'Healthy' },
          conditions: [],
        },
        ...a,
      },
    ],
    requests: 0,
    interrupted: false,
    durationMs: 0,
  };
}

describe('sync windows in a run (controller/windows.ts)', () => {
  it('an active deny refuses the (manual) sync, naming the window; the refusal is exit 2', () => {
    const v = appWindowsVerdict(app, project([freeze]), night);
    assert.ok(v.refusal instanceof GitopsError);
    assert.equal(v.refusal.exitCode, ExitCode.FAILURE);
    assert.equal(
      v.refusal.message,
      `app "web": failed to sync: blocked by sync window: AppProject "team" deny window active: deny '0 22 * * *' 8h Europe/Paris (syncWindows[0], "nightly freeze"), open until 2026-07-16T04:00:00Z`,
    );
    assert.equal(v.report?.canSync, false);
    assert.deepEqual(
      v.report?.active.map((w) => [w.index, w.until]),
      [[0, '2026-07-16T04:00:00Z']],
    );
  });

  it('outside the window: no refusal, the window is listed as assigned and not active', () => {
    const v = appWindowsVerdict(app, project([freeze]), noon);
    assert.equal(v.refusal, undefined);
    assert.equal(v.report?.canSync, true);
    assert.deepEqual(v.report?.active, []);
    assert.equal(v.report?.assigned[0]?.next, '2026-07-15T20:00:00Z');
  });

  it('no project, no windows, or no window for this app: nothing to report', () => {
    assert.deepEqual(appWindowsVerdict(app, undefined, night), { warnings: [] });
    assert.deepEqual(appWindowsVerdict(app, project(undefined), night), { warnings: [] });
    assert.deepEqual(appWindowsVerdict(app, project([{ ...freeze, namespaces: ['staging'] }]), night), {
      warnings: [],
    });
  });

  it('a shape the CRD refuses refuses the sync with the project, origin and window index', () => {
    const v = appWindowsVerdict(app, project([freeze, { kind: 'allow', clusters: 'in-cluster' }]), noon);
    assert.equal(
      v.refusal?.message,
      'app "web": failed to sync: projects.yaml (document 1): failed to read spec.syncWindows[1].clusters: must be a list of strings',
    );
    assert.equal(v.report, undefined);
  });

  it('the diff header and -o json show the windows; a dry run says a sync would be refused', () => {
    const v = appWindowsVerdict(app, project([freeze]), night);
    const r = reportOf({ syncWindows: v.report! });
    assert.match(
      renderDiffText(r),
      /^sync windows \(sync blocked\): deny '0 22 \* \* \*' 8h Europe\/Paris \(syncWindows\[0\], "nightly freeze"\), open until 2026-07-16T04:00:00Z$/m,
    );
    const doc = diffDocument(r).apps[0]!;
    assert.equal((doc['syncWindows'] as { canSync: boolean }).canSync, false);
    const dry = reportOf({
      syncWindows: v.report!,
      operation: {
        phase: 'Succeeded',
        message: 'successfully synced (dry run)',
        revision: 'a'.repeat(40),
        startedAt: '',
        finishedAt: '',
        dryRun: true,
        retries: 0,
        resources: [],
        plan: [],
      } as unknown as NonNullable<AppReport['operation']>,
    });
    assert.match(
      syncText(dry),
      /^ {2}a sync would be refused: blocked by sync window: AppProject "team" deny window active/m,
    );
    assert.equal(
      (JSON.parse(syncJson(dry)) as { apps: { syncWindows: { canSync: boolean } }[] }).apps[0]!.syncWindows
        .canSync,
      false,
    );
    assert.ok(!renderDiffText(reportOf({})).includes('sync windows'));
  });
});
