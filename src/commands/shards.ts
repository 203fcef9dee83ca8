import { Flags } from '@oclif/core';
import { BaseCommand } from './base-command.js';
import { UsageError } from '../common/index.js';
import { requestTimeoutFlag, requestTimeoutMs } from './flags.js';
import { renderShards } from '../output/shards.js';
import { ALGORITHMS, buildShardsReport, type Algorithm, type IdFrom } from '../sharding/index.js';
import { prose } from './prose.js';

/** Above this the consistent-hashing ring (1000 points per replica) stops being a quick answer. */
const MAX_REPLICAS = 1000;

export default class Shards extends BaseCommand {
  static override summary =
    'Show which application-controller shard each cluster lands on, as Argo CD computes it.';

  static override description = prose`Computes the shard of every cluster under Argo CD's three algorithms (legacy, round-robin,
consistent-hashing), bit for bit as the application controller does: cluster ID = the cluster Secret's UID,
manual "shard" fields, the in-cluster cluster, skip-reconcile, replicas <= 1.

Inputs come from --clusters-file (cluster Secrets as YAML/JSON: single documents, multi-document or List)
or, without one, from the live Argo CD namespace of the current kube context. Application counts (used by
consistent-hashing) come from --apps-file or the live Applications.`;

  static override usage = [
    'shards --replicas N --clusters-file FILE... [--apps-file FILE...] [FLAGS]',
    'shards --replicas N [--argocd-namespace NS] [--context NAME] [FLAGS]',
  ];

  static override examples = [
    {
      description: 'Shards of the clusters and apps in files, for 3 replicas.',
      command: '<%= config.bin %> shards --replicas 3 --clusters-file clusters.yaml --apps-file apps.yaml',
    },
    {
      description: 'What moves when scaling from 3 to 4 replicas, as JSON.',
      command:
        '<%= config.bin %> shards --replicas 4 --from-replicas 3 --clusters-file clusters.yaml -o json',
    },
    {
      description: 'Save the cluster Secrets of a live Argo CD as a --clusters-file.',
      command:
        'kubectl get secrets -n argocd -l argocd.argoproj.io/secret-type=cluster -o yaml > clusters.yaml',
    },
    {
      description: 'Read the clusters and apps from the live Argo CD namespace.',
      command: '<%= config.bin %> shards --replicas 3 --argocd-namespace argocd --context prod',
    },
  ];

  static override flags = {
    replicas: Flags.integer({
      description: 'Controller replica count to compute shards for.',
      required: true,
      min: 1,
      max: MAX_REPLICAS,
    }),
    'from-replicas': Flags.integer({
      description: 'Also compute with this many replicas and show which clusters (and apps) move.',
      min: 1,
      max: MAX_REPLICAS,
    }),
    algorithm: Flags.string({
      description: 'Show only this algorithm.',
      options: [...ALGORITHMS],
    }),
    'clusters-file': Flags.string({
      description:
        'Argo CD cluster Secrets (YAML/JSON; "-" for stdin). Repeatable. Without it, read the live namespace.',
      multiple: true,
    }),
    'apps-file': Flags.string({
      description:
        'Argo CD Applications to count per cluster (YAML/JSON). Repeatable. Overrides live Applications.',
      multiple: true,
    }),
    'id-from': Flags.string({
      description: 'For Secrets without metadata.uid, use this field as the cluster ID instead of failing.',
      options: ['server', 'name'],
    }),
    'in-cluster': Flags.boolean({
      description:
        'Add the in-cluster entry when no Secret targets https://kubernetes.default.svc (argocd-cm cluster.inClusterEnabled).',
      default: true,
      allowNo: true,
    }),
    'argocd-namespace': Flags.string({ description: 'Argo CD namespace (live mode).', default: 'argocd' }),
    kubeconfig: Flags.string({
      description: 'Kubeconfig file (live mode). Default: KUBECONFIG, then ~/.kube/config.',
    }),
    context: Flags.string({ description: 'Kube context (live mode). Default: the current context.' }),
    ...requestTimeoutFlag,
    output: Flags.string({
      char: 'o',
      description: 'Output format.',
      options: ['table', 'json', 'yaml'],
      default: 'table',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Shards);
    const clustersFiles = flags['clusters-file'] ?? [];
    if (clustersFiles.length === 0 && (flags['apps-file'] ?? []).includes('-')) {
      throw new UsageError('--apps-file - (stdin) needs --clusters-file');
    }
    if (
      clustersFiles.filter((f) => f === '-').length +
        (flags['apps-file'] ?? []).filter((f) => f === '-').length >
      1
    ) {
      throw new UsageError('standard input ("-") can be read only once');
    }
    const timeout = requestTimeoutMs(flags);
    const report = await buildShardsReport({
      replicas: flags.replicas,
      fromReplicas: flags['from-replicas'],
      algorithms: flags.algorithm ? [flags.algorithm as Algorithm] : undefined,
      clustersFiles,
      appsFiles: flags['apps-file'] ?? [],
      idFrom: (flags['id-from'] as IdFrom | undefined) ?? 'uid',
      inCluster: flags['in-cluster'],
      live: {
        kubeconfig: flags.kubeconfig,
        context: flags.context,
        namespace: flags['argocd-namespace'],
        ...(timeout !== undefined ? { requestTimeoutMs: timeout } : {}),
      },
      signal: this.signal,
    });
    for (const w of report.warnings) this.warnLine(w);
    this.write(renderShards(report, flags.output as 'table' | 'json' | 'yaml'));
  }
}
