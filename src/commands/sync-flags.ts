/** The flags of `kubectl gitops sync` (sync.ts), read by `sync --watch` (sync-watch.ts) too. */
import { Flags } from '@oclif/core';
import { DEFAULT_OPERATION_PROCESSORS } from '../common/index.js';
import { appFlags, clusterFlags, durationFlag, progressFlags, serverSideDiffFlags } from './flags.js';

export const syncFlags = {
  ...appFlags,
  ...clusterFlags,
  ...progressFlags,
  ...serverSideDiffFlags,
  output: Flags.string({
    char: 'o',
    description: 'Output format.',
    options: ['text', 'json'],
    default: 'text',
  }),
  prune: Flags.boolean({ description: 'Delete resources tracked by the app that are no longer in Git.' }),
  'allow-empty': Flags.boolean({ description: 'Allow a sync that would prune every resource of an app.' }),
  'dry-run': Flags.boolean({
    description: 'Validate every task with a server-side dry run; change nothing.',
  }),
  force: Flags.boolean({
    description:
      "The sync strategy's force (argocd app sync --force), Force=true for every resource: delete and re-create when a patch is rejected.",
  }),
  replace: Flags.boolean({ description: 'Sync option Replace=true: replace objects instead of applying.' }),
  'server-side': Flags.boolean({
    description: 'Sync option ServerSideApply=true (field manager argocd-controller).',
  }),
  'apply-out-of-sync-only': Flags.boolean({ description: 'Sync option ApplyOutOfSyncOnly=true.' }),
  resource: Flags.string({
    description: 'Sync only GROUP:KIND:[NAMESPACE/]NAME (repeatable; hooks are skipped).',
    multiple: true,
  }),
  strategy: Flags.string({
    description: 'hook runs hooks; apply skips them.',
    options: ['apply', 'hook'],
    default: 'hook',
  }),
  'sync-option': Flags.string({
    description: 'Sync option KEY=VALUE, e.g. CreateNamespace=true (repeatable).',
    multiple: true,
  }),
  timeout: Flags.string({
    description: 'Give up after this long (e.g. 5m); 0 waits forever.',
    default: '0',
  }),
  health: Flags.boolean({
    description:
      'Also wait until every app is Healthy after its operation (as argocd app wait --health); bounded by --timeout.',
    exclusive: ['async', 'dry-run'],
  }),
  async: Flags.boolean({
    description: 'Return when the operations end, Progressing is fine: the default (kept for scripts).',
  }),
  'retry-limit': Flags.integer({ description: 'Retries of a failed sync operation.', min: 0 }),
  'retry-backoff-duration': Flags.string({ description: 'First retry delay.', default: '5s' }),
  'retry-backoff-factor': Flags.integer({ description: 'Delay multiplier per retry.', default: 2, min: 1 }),
  'retry-backoff-max-duration': Flags.string({ description: 'Longest retry delay.', default: '3m' }),
  'status-processors': Flags.integer({
    description: "Apps compared in parallel (the refresh queue's workers).",
    default: 2,
    min: 1,
    max: 100,
  }),
  watch: Flags.boolean({
    description:
      'Keep the apps in sync until Ctrl-C or SIGTERM: poll Git (or watch the --local files), sync new revisions, report drift.',
    exclusive: ['dry-run', 'resource', 'timeout', 'async', 'health'],
  }),
  'poll-interval': Flags.string({
    description:
      'With --watch: how often the refs of each repository are polled (one git ls-remote each); default 30s.',
    dependsOn: ['watch'],
  }),
  'self-heal': Flags.boolean({
    description: "With --watch: sync an app back when its live objects drift from Git (Argo CD's selfHeal).",
    dependsOn: ['watch'],
  }),
  'self-heal-timeout': Flags.string({
    description:
      'With --self-heal: wait before a repeated self-heal, x3 per attempt, at most 5m; default 2s.',
    dependsOn: ['self-heal'],
  }),
  'app-resync': durationFlag({
    description:
      "With --watch: refresh every app this often, with jitter (Argo CD's timeout.reconciliation): 3m, 90s, or seconds; default 3m, 0: never.",
    dependsOn: ['watch'],
  }),
  'shutdown-timeout': Flags.string({
    description: 'With --watch: how long running syncs may take to end after SIGTERM or Ctrl-C; default 30s.',
    dependsOn: ['watch'],
  }),
  'operation-processors': Flags.integer({
    description: "Apps synced in parallel (the operation queue's workers), as Argo CD's controller flag.",
    default: DEFAULT_OPERATION_PROCESSORS,
    min: 1,
    max: 100,
  }),
};
