/**
 * The engine's first step, before any write (gitops-engine sync_context.go `getSyncTasks` and the dry run
 * of `Sync`). In order:
 * 0. Every pending task's kind is served (else discovery's error; see `tasksValid`) and the project
 *    permits it (Argo CD's `WithPermissionValidator`): any failure ends the operation Failed, "one or more
 *    synchronization tasks are not valid: <reasons>", before the dry run, with nothing written.
 * 1. A server-side dry run of every pending task (writes with `dryRun=All`; prunes as dry-run deletes), in
 *    parallel. Any failure ends the operation Failed, "one or more objects failed to apply (dry run)",
 *    with nothing written. A kind the cluster does not serve fails there unless a CRD of this sync defines
 *    it or `SkipDryRunOnMissingResource=true`; a 404 for an object in a Namespace this sync creates is
 *    accepted (the server cannot judge it there yet).
 * Progress: `validate-start` before, `validate-done` (with the failed count) after, whatever the outcome.
 */
import { parseApiVersion } from '../common/index.js';
import { hasOption } from './annotations.js';
import { UnknownKindError, messageOf } from './engine-types.js';
import type { EngineRun } from './engine-types.js';

/** Steps 0 and 1; false when the operation ended Failed. */
export async function validate(run: EngineRun): Promise<boolean> {
  const crdKinds = new Set(
    run.states
      .filter((s) => s.task.key.kind === 'CustomResourceDefinition' && s.task.target)
      .map((s) => {
        const spec = s.task.target!['spec'] as { group?: string; names?: { kind?: string } } | undefined;
        return `${spec?.group ?? ''}/${spec?.names?.kind ?? ''}`;
      }),
  );
  const createdNamespaces = new Set(
    run.states
      .filter((s) => s.task.key.kind === 'Namespace' && s.task.key.group === '' && s.task.action === 'create')
      .map((s) => s.task.key.name),
  );
  const work = run.states.filter((s) => s.phase === 'Pending');
  run.emit({ type: 'validate-start', tasks: work.length });
  if (!tasksValid(run, crdKinds)) {
    run.emit({ type: 'validate-done', failed: run.states.filter((s) => s.phase === 'Failed').length });
    return false;
  }
  await Promise.all(
    work.map(async (s) => {
      const kindKey = `${s.task.key.group}/${s.task.key.kind}`;
      // An unserved kind got here only because tasksValid let it (a CRD of this sync defines it, or
      // SkipDryRunOnMissingResource): there is nothing to dry-run it against.
      if (!run.client.served(s.task)) return;
      try {
        await run.client.dryRun(s.task);
      } catch (err) {
        if (
          err instanceof UnknownKindError &&
          (crdKinds.has(kindKey) || hasOption(s.task.options, 'SkipDryRunOnMissingResource'))
        )
          return;
        // The namespace this sync creates does not exist yet: the server cannot judge the object there.
        if (isNotFoundError(err) && createdNamespaces.has(s.task.key.namespace)) return;
        run.set(s, 'Failed', 'SyncFailed', messageOf(err));
      }
    }),
  );
  run.emit({ type: 'validate-done', failed: run.states.filter((s) => s.phase === 'Failed').length });
  if (run.states.some((s) => s.phase === 'Failed')) {
    run.end('Failed', 'one or more objects failed to apply (dry run)');
    return false;
  }
  return true;
}

/**
 * Step 0 (gitops-engine `getSyncTasks`): a task whose kind the cluster does not serve (no CRD of this sync
 * defines it, no `SkipDryRunOnMissingResource`) fails with discovery's error, and every task the project
 * refuses fails with the refusal; any failure ends the operation before any request, "one or more
 * synchronization tasks are not valid: " and the distinct errors, sorted. The unserved task's own message
 * is the one Argo CD's controller shows in its place (util/argo AugmentSyncMsg: naming the version a kind of
 * that name is served at, in the task's group or another, when there is one). Such a task's result has
 * no operation phase (`hookPhase` ''), as gitops-engine records it (`setResourceResult(task, SyncFailed, "", ...)`).
 */
function tasksValid(run: EngineRun, crdKinds: ReadonlySet<string>): boolean {
  const permission = run.options.permission;
  const reasons = new Set<string>();
  for (const s of run.states) {
    if (s.phase !== 'Pending') continue;
    const { group, kind, namespace, name } = s.task.key;
    if (!run.client.served(s.task)) {
      if (crdKinds.has(`${group}/${kind}`) || hasOption(s.task.options, 'SkipDryRunOnMissingResource'))
        continue;
      const version = s.task.apiVersion;
      const unserved = run.client.unserved?.(s.task);
      const error =
        unserved?.error ??
        `failed to discover server resources for group version ${version}: the server could not find the requested resource`;
      reasons.add(error);
      // Argo CD's controller rewords discovery's "could not find the requested resource" only.
      const other = unserved?.installed;
      run.set(
        s,
        'Failed',
        'SyncFailed',
        !error.includes('the server could not find the requested resource')
          ? error
          : other
            ? `The Kubernetes API could not find version "${parseApiVersion(version).version}" of ${group}/${kind} for requested ` +
              `resource ${namespace}/${name}. Version "${other.version}" of ${other.group}/${kind} is installed on ` +
              'the destination cluster.'
            : `The Kubernetes API could not find ${group}/${kind} for requested resource ${namespace}/${name}. ` +
              `Make sure the "${kind}" CRD is installed on the destination cluster.`,
      );
      s.reportedPhase = '';
      continue;
    }
    const reason = permission?.(s.task);
    if (reason === undefined) continue;
    reasons.add(reason);
    run.set(s, 'Failed', 'SyncFailed', reason);
    s.reportedPhase = '';
  }
  if (reasons.size === 0) return true;
  run.end('Failed', `one or more synchronization tasks are not valid: ${[...reasons].sort().join('; ')}`);
  return false;
}

function isNotFoundError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 404;
}
