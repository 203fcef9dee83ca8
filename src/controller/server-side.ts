/**
 * Server-side diff (`--server-side-diff`, or the Application annotation
 * `argocd.argoproj.io/compare-options: ServerSideDiff=true`; `ServerSideDiff=false` opts an app out):
 * the predicted live state is the answer of a server-side apply dry run of the target (field manager
 * `argocd-controller`), so defaults, admission webhooks and field ownership are exactly the server's.
 * As Argo CD's dry runner (gitops-engine `pkg/diff/diff_options.go K8sServerSideDryRunner.Run` calls
 * `ApplyResource` with serverSideApply true, force false, validate false, and `pkg/utils/kube/resource_ops.go`
 * `newApplyOptions` sets `ForceConflicts = serverSideApply`) the dry run **forces conflicts** (`force=true`)
 * and does not validate fields (`fieldValidation=Ignore`, kubectl's `--validate=false`): a field another
 * manager owns with another value (say a client-side apply by `argocd-controller`, an Update entry, the
 * usual history of an app that moved to server-side diff) is predicted as Git has it, so the verdict is
 * OutOfSync or Synced, as Argo CD's, never a conflict. Nothing is stored (`dryRun=All`). One PATCH per
 * resource that exists live (missing resources need no prediction), at most
 * `concurrency` in flight per app. A failed dry run is that resource's comparison error. The answer is
 * handed to src/diff as `predictedLive`, which removes what mutating webhooks added unless the app's
 * compare-options say `IncludeMutationWebhook=true` (`appIncludesMutationWebhook`).
 */
import { oneLine } from '../common/index.js';
import type { KubeClient, KubeObject, ResourceInfo } from '../cluster/index.js';

import {
  COMPARE_OPTIONS_ANNOTATION,
  CompareOption,
  DEFAULT_FIELD_MANAGER,
  splitOptions,
} from '../common/index.js';

export { COMPARE_OPTIONS_ANNOTATION };
export const SERVER_SIDE_DIFF_MANAGER = DEFAULT_FIELD_MANAGER;

/** The app's ServerSideDiff compare option, if it sets one. */
export function appServerSideDiff(annotations: Record<string, string>): boolean | undefined {
  const options = splitOptions(annotations[COMPARE_OPTIONS_ANNOTATION]);
  if (options.includes(CompareOption.ServerSideDiff)) return true;
  if (options.includes(CompareOption.ServerSideDiffDisabled)) return false;
  return undefined;
}

/** The app's compare-options say `IncludeMutationWebhook=true` (Argo CD controller/state.go). */
export function appIncludesMutationWebhook(annotations: Record<string, string>): boolean {
  return splitOptions(annotations[COMPARE_OPTIONS_ANNOTATION]).includes(CompareOption.IncludeMutationWebhook);
}

export interface DryRunJob {
  info: ResourceInfo;
  target: KubeObject;
}

export type DryRunOutcome = { predicted: KubeObject } | { error: string };

/** Dry-run applies every job, `concurrency` at a time; results are aligned with `jobs`. */
export async function dryRunApply(
  client: KubeClient,
  jobs: readonly DryRunJob[],
  concurrency: number,
  signal?: AbortSignal,
): Promise<DryRunOutcome[]> {
  const out: DryRunOutcome[] = new Array<DryRunOutcome>(jobs.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < jobs.length; i = next++) {
      const { info, target } = jobs[i]!;
      const ns = info.namespaced ? (target.metadata?.namespace ?? '') : '';
      const name = target.metadata?.name ?? '';
      try {
        const predicted = await client.patch(info, ns, name, target, 'apply', {
          dryRun: true,
          force: true,
          fieldManager: SERVER_SIDE_DIFF_MANAGER,
          fieldValidation: 'Ignore',
          subject: `${info.group}/${info.kind} ${ns ? `${ns}/` : ''}${name}`,
          signal,
        });
        out[i] = { predicted };
      } catch (err) {
        signal?.throwIfAborted();
        out[i] = { error: `failed to dry-run apply: ${oneLine(err)}` };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, jobs.length)) }, worker));
  return out;
}
