/**
 * Operations cases (phase `operations`, conformance/compare/operations.ts): ordered steps written to the
 * app as Argo CD's CLI writes them (sync, rollback, terminate, a local sync's manifests, deletion), run
 * by Argo CD's application controller on `<id>-a` and by ours on `<id>-o`, one controller at a time.
 * Automated sync is off in every case (a rollback requires it; a local sync too unless a dry run).
 */
import { app, cm, docs, hook, job, type CaseDraft } from './lib.js';
import type { Obj } from '../../compare/case.js';

const PROVENANCE =
  'argo-cd controller/appcontroller.go processRequestedAppOperation, controller/sync.go, controller/hook.go, server/application Rollback/TerminateOperation, gitops-engine pkg/sync/sync_context.go Terminate';

/** A Job the Job controller never starts (`suspend: true`): health Suspended, so a hook stays Running. */
function suspendedJob(name: string, meta: Obj): Obj {
  const j = job(name, meta);
  return { ...j, spec: { ...j.spec, suspend: true } };
}

const FINALIZER = { finalizers: ['resources-finalizer.argocd.argoproj.io'] };

export function operations(): CaseDraft[] {
  return [
    {
      name: 'op-terminate-running-hook',
      intent:
        'terminate-op while a PreSync hook Job (suspended, so Running on both) runs: the hook deleted, the operation Failed',
      provenance: PROVENANCE,
      repo: { 'app/all.yaml': docs(suspendedJob('wait', hook('PreSync')), cm('cfg')) },
      app: app(),
      operations: [{ op: 'sync', until: 'hookRunning' }, { op: 'terminate' }],
    },
    {
      name: 'op-terminate-retry-backoff',
      intent:
        'terminate-op while a failed sync waits for its retry (a failing PreSync hook, retry limit 3, backoff 2m)',
      provenance: PROVENANCE,
      repo: { 'app/all.yaml': docs(job('pre', hook('PreSync'), true), cm('cfg')) },
      app: app(),
      operations: [
        {
          op: 'sync',
          until: 'retrying',
          retry: { limit: 3, backoff: { duration: '2m', factor: 2, maxDuration: '5m' } },
        },
        { op: 'terminate' },
      ],
    },
    {
      name: 'op-rollback',
      intent:
        'two syncs over two commits, then argocd app rollback to history id 0 (no prune): history, operation, sync status',
      provenance: PROVENANCE,
      repo: { 'app/cm.yaml': docs(cm('cfg', { version: '1' })) },
      app: app(),
      operations: [
        { op: 'sync' },
        { op: 'push', files: { 'app/cm.yaml': docs(cm('cfg', { version: '2' }), cm('extra')) } },
        { op: 'sync' },
        { op: 'rollback', id: 0 },
      ],
    },
    {
      name: 'op-local-sync',
      intent:
        'a local sync (operation.sync.manifests): the given objects applied, nothing rendered; then compared with Git again',
      provenance: PROVENANCE,
      repo: { 'app/cm.yaml': docs(cm('cfg', { from: 'git' })) },
      app: app(),
      operations: [
        {
          op: 'sync',
          manifests: [cm('cfg', { from: 'local' }), cm('local-only')],
        },
      ],
    },
    {
      name: 'op-predelete-hook',
      intent:
        'a PreDelete hook (HookSucceeded): its finalizers added on refresh; on deletion it runs before the cascade, then is deleted',
      provenance: PROVENANCE,
      repo: {
        'app/all.yaml': docs(cm('cfg'), job('before-delete', hook('PreDelete', 'HookSucceeded'))),
      },
      app: app({}, {}, FINALIZER),
      operations: [{ op: 'sync' }, { op: 'delete' }],
    },
    {
      name: 'op-postdelete-hook',
      intent:
        'a PostDelete hook (default policy): it runs after the cascade deleted the app resources; the app goes once it is Healthy',
      provenance: PROVENANCE,
      repo: { 'app/all.yaml': docs(cm('cfg'), job('after-delete', hook('PostDelete'))) },
      app: app({}, {}, FINALIZER),
      operations: [{ op: 'sync' }, { op: 'delete' }],
    },
    {
      name: 'op-delete-hooks-both',
      intent:
        'PreDelete (default policy) and PostDelete (HookSucceeded) hooks together, no resources finalizer: both stages, cleanup by policy',
      provenance: PROVENANCE,
      repo: {
        'app/all.yaml': docs(
          cm('cfg'),
          job('pre', hook('PreDelete')),
          job('post', hook('PostDelete', 'HookSucceeded')),
        ),
      },
      app: app(),
      operations: [{ op: 'sync' }, { op: 'delete' }],
    },
  ];
}
