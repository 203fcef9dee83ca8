/**
 * AppProject sync windows in a run: what the report shows and whether the operation may start.
 *
 * Argo CD checks the windows of the app's project when an operation runs (`controller/sync.go`
 * `syncWindowPreventsSync`, before any task) and when `argocd app sync` asks for one (the API server's
 * `CanSync(true, nil)`): a sync from this CLI is a manual sync. `appWindowsVerdict(app, project, now)`:
 * - `report`: the windows that apply to the app at `now` (src/apps `SyncWindowsReport`), for the diff
 *   header and `-o json`; absent when the project has no window for the app;
 * - `refusal`: set when a manual sync may not start now (an active deny, outside every allow window, an
 *   invalid window that applies, or `spec.syncWindows` of a shape the CRD refuses): the app's error,
 *   `app "x": failed to sync: blocked by sync window: ...` (exit 2). The operation processor throws it
 *   before the operation starts, so nothing is written; `--dry-run` plans anyway and reports it.
 * - `manual` false judges an automated sync (the loop's auto-sync and self-heal): `manualSync` windows do
 *   not let it through.
 * - `warnings`: window problems Argo CD's API would refuse, unknown time zones (one line each).
 */
import {
  appSyncWindows,
  syncWindowRefusal,
  syncWindowsReport,
  type Application,
  type SyncWindowsReport,
} from '../../apps/index.js';
import { GitopsError } from '../../common/index.js';

/** What the verdict reads of an AppProject (src/apps `AppProject` has these). */
export interface WindowsProject {
  name: string;
  origin?: string | undefined;
  /** `spec.syncWindows` as read. */
  syncWindows: unknown;
}

export interface AppWindowsVerdict {
  report?: SyncWindowsReport;
  refusal?: GitopsError;
  warnings: string[];
}

export function appWindowsVerdict(
  app: Application,
  project: WindowsProject | undefined,
  now: Date,
  /** Default true (a CLI sync); false for auto-sync and self-heal (Argo CD's `CanSync(false)`). */
  manual = true,
): AppWindowsVerdict {
  if (!project || project.syncWindows === undefined || project.syncWindows === null) return { warnings: [] };
  try {
    const windows = appSyncWindows(project.syncWindows, app, now, {
      project: project.name,
      ...(project.origin ? { origin: project.origin } : {}),
      manual,
    });
    const report = syncWindowsReport(windows);
    const refusal = syncWindowRefusal(app, windows);
    return {
      ...(report.assigned.length > 0 || report.blockedBy ? { report } : {}),
      ...(refusal ? { refusal } : {}),
      warnings: windows.warnings,
    };
  } catch (err) {
    // A shape the AppProject CRD refuses: no sync may start, as Argo CD cannot read such a project.
    const message = err instanceof Error ? err.message : String(err);
    return {
      refusal: new GitopsError(`failed to sync: ${message}`, {
        subject: `app "${app.name}"`,
        ...(err instanceof GitopsError && err.hint ? { hint: err.hint } : {}),
      }),
      warnings: [message],
    };
  }
}
