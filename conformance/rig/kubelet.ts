/**
 * The rig's kubelet stand-in (no scheduler, no kubelet, no container runtime on a loopback rig): one
 * process that plays both for a single Node, `conformance-node`, against the real kube-apiserver.
 * - Registers the Node (Ready, with capacity) so DaemonSets place a Pod on it.
 * - Scheduler: binds every unbound Pod to the Node (the pods/binding subresource, as kube-scheduler does).
 * - Kubelet: moves each Pod bound to the Node through the steps our embedded server's simulation uses
 *   (src/embedded/simulate/kubelet.ts `nextPodStatus`, same rules, written through the pods/status
 *   subresource): Pending -> Running with every container Ready; a run-to-completion Pod (restartPolicy
 *   Never/OnFailure) then Succeeded, or Failed when it is meant to fail (the simulate-fail annotation, or a
 *   command `false` / a shell script ending in `exit N`; shared.ts `wantsFailure`). A crash-looping
 *   long-running Pod stays Running, not Ready, in CrashLoopBackOff.
 * - Finishes graceful deletion: a bound Pod given a deletionTimestamp is deleted with grace period 0 (what
 *   the kubelet does once its containers stopped), so rollouts, prunes and namespace deletions complete.
 * - Leaves alone a Pod annotated `conformance.gitops.kubectl.io/recorded-status: "true"` (paths.ts
 *   `STANDIN_IGNORE_ANNOTATION`): a case that writes a recorded status (a health vector) means that status
 *   to be read, not the stand-in's next step; such a Pod is not bound either (an unbound Pod's delete is
 *   immediate, so nothing is left to finish).
 * The real kube-controller-manager does the rest (Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs).
 * The Node's address is 127.0.0.1: nothing on the rig ever connects to a Pod or Node address.
 *
 * Usage: node --import tsx conformance/rig/kubelet.ts <config.json>, config {server, ca, cert, key}.
 */
import { readFileSync } from 'node:fs';
import { nextPodStatus } from '../../src/embedded/simulate/kubelet.js';
import type { KObject } from '../../src/embedded/types.js';
import { HttpError, Kube, type Obj } from './kube.js';
import { NODE_NAME, STANDIN_IGNORE_ANNOTATION } from './paths.js';

const KUBERNETES_VERSION = process.env['CONFORMANCE_KUBERNETES_VERSION'] ?? 'v0.0.0';
const NODE_IP = '127.0.0.1';
/** Each Pod's next step happens this long after the change that caused it (as a kubelet takes a moment). */
const STEP_MS = 100;

function log(msg: string): void {
  process.stdout.write(`${new Date().toISOString()} ${msg}\n`);
}

const podPath = (ns: string, name: string, sub = ''): string =>
  `/api/v1/namespaces/${encodeURIComponent(ns)}/pods/${encodeURIComponent(name)}${sub}`;

async function registerNode(kube: Kube): Promise<void> {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const status = {
    capacity: { cpu: '8', memory: '32Gi', pods: '250', 'ephemeral-storage': '100Gi' },
    allocatable: { cpu: '8', memory: '32Gi', pods: '250', 'ephemeral-storage': '100Gi' },
    addresses: [
      { type: 'InternalIP', address: NODE_IP },
      { type: 'Hostname', address: NODE_NAME },
    ],
    conditions: [
      {
        type: 'MemoryPressure',
        status: 'False',
        reason: 'KubeletHasSufficientMemory',
        message: 'kubelet has sufficient memory available',
      },
      {
        type: 'DiskPressure',
        status: 'False',
        reason: 'KubeletHasNoDiskPressure',
        message: 'kubelet has no disk pressure',
      },
      {
        type: 'PIDPressure',
        status: 'False',
        reason: 'KubeletHasSufficientPID',
        message: 'kubelet has sufficient PID available',
      },
      { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' },
    ].map((c) => ({ ...c, lastHeartbeatTime: now, lastTransitionTime: now })),
    nodeInfo: {
      machineID: 'conformance',
      systemUUID: 'conformance',
      bootID: 'conformance',
      kernelVersion: '',
      osImage: 'conformance rig (no containers run)',
      containerRuntimeVersion: 'stand-in://0',
      kubeletVersion: KUBERNETES_VERSION,
      kubeProxyVersion: '',
      operatingSystem: 'linux',
      architecture: 'amd64',
    },
    daemonEndpoints: { kubeletEndpoint: { Port: 0 } },
  };
  const node: Obj = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: NODE_NAME,
      labels: {
        'kubernetes.io/hostname': NODE_NAME,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
      },
    },
    spec: {},
  };
  await kube.create('/api/v1/nodes', node, true);
  // kube-controller-manager's node controllers (TTL, IPAM) write the new Node too: retry on conflicts.
  for (let attempt = 1; ; attempt++) {
    const stored = await kube.get(`/api/v1/nodes/${NODE_NAME}`);
    try {
      await kube.request('PUT', `/api/v1/nodes/${NODE_NAME}/status`, { ...stored, status });
      break;
    } catch (e) {
      if (!(e instanceof HttpError && e.status === 409) || attempt >= 20) throw e;
    }
  }
  log(`node ${NODE_NAME} registered`);
}

class Standin {
  private podIps = 0;
  /** Latest seen version of each Pod waiting for its next step, by namespace/name. */
  private readonly pending = new Map<string, Obj>();
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(private readonly kube: Kube) {}

  onPod(type: string, pod: Obj): void {
    const key = `${pod.metadata?.namespace}/${pod.metadata?.name}`;
    if (type === 'DELETED') {
      this.pending.delete(key);
      clearTimeout(this.timers.get(key));
      this.timers.delete(key);
      return;
    }
    this.pending.set(key, pod);
    if (this.timers.has(key)) return;
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        const latest = this.pending.get(key);
        this.pending.delete(key);
        if (latest) void this.step(latest).catch((e: unknown) => log(`pod ${key}: ${(e as Error).message}`));
      }, STEP_MS),
    );
  }

  private nextPodIp(): string {
    const n = ++this.podIps;
    return `10.244.${Math.floor(n / 250) % 250}.${(n % 250) + 2}`;
  }

  private async step(pod: Obj): Promise<void> {
    const meta = pod.metadata ?? {};
    const ns = meta.namespace ?? '';
    const name = meta.name ?? '';
    const spec = (pod['spec'] ?? {}) as { nodeName?: string };
    if ((meta['annotations'] as Record<string, string> | undefined)?.[STANDIN_IGNORE_ANNOTATION] === 'true')
      return;
    try {
      if (meta['deletionTimestamp']) {
        if (spec.nodeName !== NODE_NAME) return;
        await this.kube.request('DELETE', podPath(ns, name), {
          apiVersion: 'v1',
          kind: 'DeleteOptions',
          gracePeriodSeconds: 0,
          preconditions: { uid: meta.uid },
        });
        log(`pod ${ns}/${name}: deleted (graceful deletion finished)`);
        return;
      }
      if (!spec.nodeName) {
        await this.kube.request('POST', podPath(ns, name, '/binding'), {
          apiVersion: 'v1',
          kind: 'Binding',
          metadata: { name, namespace: ns, uid: meta.uid },
          target: { apiVersion: 'v1', kind: 'Node', name: NODE_NAME },
        });
        log(`pod ${ns}/${name}: bound to ${NODE_NAME}`);
        return;
      }
      if (spec.nodeName !== NODE_NAME) return;
      const status = nextPodStatus(pod as unknown as KObject, () => this.nextPodIp());
      if (!status) return;
      status['hostIP'] = NODE_IP;
      status['hostIPs'] = [{ ip: NODE_IP }];
      await this.kube.request('PUT', podPath(ns, name, '/status'), { ...pod, status });
      log(`pod ${ns}/${name}: ${String(status['phase'])}`);
    } catch (e) {
      // 404: gone meanwhile; 409: changed meanwhile, the watch brings the newer version.
      if (e instanceof HttpError && (e.status === 404 || e.status === 409)) return;
      throw e;
    }
  }
}

async function main(): Promise<void> {
  const configFile = process.argv[2];
  if (!configFile) throw new Error('usage: kubelet.ts <config.json>');
  const config = JSON.parse(readFileSync(configFile, 'utf8')) as {
    server: string;
    ca: string;
    cert: string;
    key: string;
  };
  const kube = new Kube({ ...config, userAgent: `kubelet/${KUBERNETES_VERSION} (conformance stand-in)` });
  await registerNode(kube);
  const standin = new Standin(kube);
  const stop = new AbortController();
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    process.on(sig, () => {
      stop.abort();
      kube.close();
      process.exit(0);
    });
  }
  for (;;) {
    const list = await kube.get<{ items: Obj[]; metadata: { resourceVersion: string } }>('/api/v1/pods');
    for (const p of list.items) standin.onPod('ADDED', p);
    let rv = list.metadata.resourceVersion;
    try {
      for (;;)
        rv = await kube.watch('/api/v1/pods', rv, (type, obj) => standin.onPod(type, obj), stop.signal);
    } catch (e) {
      log(`watch ended (${(e as Error).message}); listing again`);
    }
  }
}

main().catch((e: unknown) => {
  log(`kubelet stand-in: failed: ${(e as Error).stack ?? String(e)}`);
  process.exit(1);
});
