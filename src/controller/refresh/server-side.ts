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
 * resource that exists live (missing resources need no prediction). A failed dry run is that resource's
 * comparison error. The answer is handed to src/diff as `predictedLive`, which removes what mutating
 * webhooks added unless the app's compare-options say `IncludeMutationWebhook=true`
 * (`appIncludesMutationWebhook`).
 *
 * Batches and concurrency (`batchJobs`, `dryRunApply`), as Argo CD 3's `argocd app diff --server-side-diff`
 * and `argocd app sync` (cmd/argocd/commands/app_diff.go `newServerSideDiffStrategy`,
 * `addServerSideDiffPerfFlags`): an app's resources are cut, in order, into batches of at most
 * `maxBatchKB` KB (default 250) of live JSON plus target JSON (a resource bigger than that is a batch of its
 * own); at most `concurrency` batches run at once (default -1: all; 0 is refused, as Argo CD refuses it);
 * the dry runs of one batch run one after another, as argocd-server runs a batch's (server/application
 * `ServerSideDiff` -> util/argo/diff `StateDiffs`, one resource at a time). So at most
 * min(concurrency, batches) dry runs of an app are in flight, and an app of ordinary size (one batch) sends
 * its dry runs one at a time, as Argo CD's controller does (its `CompareAppState` dry-runs an app's resources
 * in a loop). Argo CD's budget keeps each CLI -> argocd-server request under proxies' body limits; we send
 * each dry run straight to the API server (one object per request), so here the budget only shapes the
 * batches, hence the in-flight bound: big apps get more parallel batches, small ones fewer. A batch's
 * failed dry run fails that resource only, and the batch goes on (Argo CD fails the whole diff).
 */
import { oneLine } from '../../common/index.js';
import type { KubeClient, KubeObject, ResourceInfo } from '../../cluster/index.js';

import {
  COMPARE_OPTIONS_ANNOTATION,
  CompareOption,
  DEFAULT_FIELD_MANAGER,
  splitOptions,
} from '../../common/index.js';

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

/** Argo CD's default `--server-side-diff-concurrency`: every batch at once. */
export const DEFAULT_SERVER_SIDE_DIFF_CONCURRENCY = -1;
/** Argo CD's default `--server-side-diff-max-batch-kb`. */
export const DEFAULT_SERVER_SIDE_DIFF_MAX_BATCH_KB = 250;

export interface DryRunJob {
  info: ResourceInfo;
  target: KubeObject;
  /** The live object (its JSON size counts toward the batch budget). */
  live?: KubeObject | undefined;
}

export type DryRunOutcome = { predicted: KubeObject } | { error: string };

/** How dry runs are grouped and bounded (see the header). */
export interface DryRunLimits {
  /** Batches at once; -1 (or any value below 1 but 0): all. 0 is the caller's error to refuse. */
  concurrency: number;
  /** Live JSON plus target JSON per batch, in KB (1024 bytes). */
  maxBatchKB: number;
}

/** Cuts `jobs` in order into batches of at most `maxBatchKB` (live + target JSON); [start, end) each. */
export function batchJobs(jobs: readonly DryRunJob[], maxBatchKB: number): Array<[number, number]> {
  const budget = maxBatchKB * 1024;
  const sizes = jobs.map(
    (j) =>
      (j.live ? Buffer.byteLength(JSON.stringify(j.live)) : 0) + Buffer.byteLength(JSON.stringify(j.target)),
  );
  const batches: Array<[number, number]> = [];
  for (let i = 0; i < jobs.length;) {
    const start = i;
    let size = 0;
    while (i < jobs.length && (i === start || size + sizes[i]! <= budget)) size += sizes[i++]!;
    batches.push([start, i]);
  }
  return batches;
}

/**
 * Dry-run applies every job: batches of `limits.maxBatchKB`, `limits.concurrency` batches at a time, a
 * batch's jobs one after another (see the header); results are aligned with `jobs`.
 */
export async function dryRunApply(
  client: KubeClient,
  jobs: readonly DryRunJob[],
  limits: DryRunLimits,
  signal?: AbortSignal,
): Promise<DryRunOutcome[]> {
  const out: DryRunOutcome[] = new Array<DryRunOutcome>(jobs.length);
  const batches = batchJobs(jobs, limits.maxBatchKB);
  const width = limits.concurrency >= 1 ? Math.min(limits.concurrency, batches.length) : batches.length;
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let b = next++; b < batches.length; b = next++) {
      const [start, end] = batches[b]!;
      for (let i = start; i < end; i++) out[i] = await dryRunOne(client, jobs[i]!, signal);
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return out;
}

/** One dry run: the predicted object, or the refusal as this resource's error. */
async function dryRunOne(client: KubeClient, job: DryRunJob, signal?: AbortSignal): Promise<DryRunOutcome> {
  const { info, target } = job;
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
    return { predicted };
  } catch (err) {
    signal?.throwIfAborted();
    return { error: `failed to dry-run apply: ${oneLine(err)}` };
  }
}
