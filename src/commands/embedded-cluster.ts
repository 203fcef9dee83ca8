import { Flags } from '@oclif/core';
import { BaseCommand } from './base-command.js';
import { existsSync } from 'node:fs';
import { ExitCode, GitopsError, oneLine, UsageError } from '../common/index.js';
import { handleInterruptInCommand, InterruptError } from '../common/index.js';
import { prose } from './prose.js';

export default class EmbeddedCluster extends BaseCommand {
  static override summary = 'Run an in-memory Kubernetes API server (for demos, tests and offline CI).';

  static override description = prose`Serves an embedded Kubernetes API server on 127.0.0.1 over plain HTTP (no auth) until SIGINT or SIGTERM, and writes a kubeconfig pointing at it. It serves discovery, the common built-in kinds and any CustomResourceDefinition created in it, with the real API's semantics: resourceVersions, label and field selectors, watch, merge/JSON/strategic merge patches, server-side apply with managedFields, dry-run, defaults and deletion propagation. kubectl works against it. There are no controllers: nothing creates Pods or updates status.

With --simulate-workloads it also simulates the workload controllers and a kubelet (a simulation: no container runs): Deployments, ReplicaSets, StatefulSets and DaemonSets get Pods and rolled-out status, Pods become Running and Ready, Jobs complete. A Pod or Job annotated gitops.kubectl.io/simulate-fail: "true" fails.

--kubeconfig-out refuses an existing file unless --force is given (the file is then replaced, not merged).

With --data, state is loaded from FILE at start (when it exists) and saved to it on exit.`;

  static override usage = [
    'embedded-cluster --kubeconfig-out FILE [--force] [--port N] [--data FILE] [--context NAME] [--simulate-workloads [--simulate-delay MS]] [FLAGS]',
  ];

  static override examples = [
    {
      description: 'Serve a cluster and write its kubeconfig.',
      command: '<%= config.bin %> embedded-cluster --kubeconfig-out /tmp/embedded.kubeconfig',
    },
    {
      description: 'Use it with kubectl (in another shell).',
      command: 'KUBECONFIG=/tmp/embedded.kubeconfig kubectl apply --server-side -f manifests/',
    },
    {
      description: 'A fixed port, with state kept in a file between runs.',
      command: '<%= config.bin %> embedded-cluster --kubeconfig-out kc.yaml --port 6443 --data state.json',
    },
    {
      description: 'Workloads get Pods and become ready.',
      command: '<%= config.bin %> embedded-cluster --kubeconfig-out kc.yaml --simulate-workloads',
    },
  ];

  static override flags = {
    'kubeconfig-out': Flags.string({
      description:
        'Write a kubeconfig for the server to this file (an existing file is refused without --force).',
      required: true,
    }),
    force: Flags.boolean({
      description: 'Overwrite the --kubeconfig-out file when it exists (it is replaced, not merged).',
      default: false,
    }),
    port: Flags.integer({ description: 'TCP port on 127.0.0.1 (default: a free port).', min: 0, max: 65535 }),
    data: Flags.string({ description: 'State file: loaded at start if it exists, saved on exit.' }),
    'simulate-workloads': Flags.boolean({
      description:
        'Simulate the workload controllers and a kubelet: workloads get Pods and rolled-out status (a simulation; nothing runs).',
      default: false,
    }),
    'simulate-delay': Flags.integer({
      description:
        "With --simulate-workloads: milliseconds between a change and the simulated controllers' reaction.",
      min: 0,
      max: 60_000,
      default: 25,
      dependsOn: ['simulate-workloads'],
    }),
    context: Flags.string({
      description: 'Name of the cluster, context and user in the kubeconfig.',
      default: 'embedded',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(EmbeddedCluster);
    // Checked before the server starts: a kubeconfig holding other clusters' credentials is never lost.
    if (!flags.force && existsSync(flags['kubeconfig-out'])) {
      throw new UsageError('failed to write kubeconfig: the file exists (pass --force to replace it)', {
        subject: flags['kubeconfig-out'],
      });
    }
    // Loaded here, not at the top: every other command would otherwise load the server at start-up.
    const { startEmbeddedCluster } = await import('../embedded/index.js');
    // Stopping by signal is this command's normal end; closing (and saving --data) must not be cut short.
    handleInterruptInCommand();
    const cluster = await startEmbeddedCluster({
      ...(flags.port !== undefined ? { port: flags.port } : {}),
      ...(flags.data ? { dataFile: flags.data } : {}),
      ...(flags['simulate-workloads'] ? { simulateWorkloads: { delayMs: flags['simulate-delay'] } } : {}),
    }).catch((err: unknown) => {
      throw new GitopsError(`failed to start: ${oneLine(err)}`, { subject: 'embedded-cluster', cause: err });
    });
    try {
      await cluster.writeKubeconfig(flags['kubeconfig-out'], flags.context);
    } catch (err) {
      await cluster.close();
      throw new GitopsError(`failed to write kubeconfig: ${oneLine(err)}`, {
        subject: flags['kubeconfig-out'],
        cause: err,
      });
    }
    this.write(
      `embedded cluster serving at ${cluster.url}${flags['simulate-workloads'] ? ' (simulating workloads)' : ''}`,
    );
    this.write(
      `kubeconfig written to ${flags['kubeconfig-out']} (context "${flags.context}"); Ctrl-C to stop`,
    );
    const signal = this.signal;
    const reason = await new Promise<unknown>((resolve) => {
      if (signal.aborted) resolve(signal.reason);
      else signal.addEventListener('abort', () => resolve(signal.reason), { once: true });
    });
    await cluster.close();
    const how = reason instanceof InterruptError ? `on ${reason.signal}` : `: ${oneLine(reason)}`;
    process.stderr.write(`stopped ${how}${flags.data ? `; state saved to ${flags.data}` : ''}\n`);
    // A server stopped by a signal has done its job: exit 0, not 130.
    process.exitCode = ExitCode.OK;
  }
}
