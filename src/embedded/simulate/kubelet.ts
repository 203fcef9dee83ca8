/**
 * The kubelet of the workload simulation: Pods on the one virtual node, phases and conditions (rules:
 * simulate.ts).
 */
import { now } from '../managed-fields.js';
import { podQosClass } from '../pod-status.js';
import type { Json, JsonMap, KObject } from '../types.js';
import type { Simulation } from './shared.js';
import {
  POD,
  KUBELET,
  path,
  mapAt,
  conditionsOf,
  wantsFailure,
  podPhase,
  templateHash,
  setCondition,
} from './shared.js';

export function reconcilePod(sim: Simulation, p: KObject): void {
  const status = nextPodStatus(p, () => sim.nextPodIp());
  if (status) sim.writeStatus(POD, p, status, KUBELET);
}

/**
 * The status the kubelet writes next for Pod `p` (one step: Pending -> Running and Ready, or a
 * run-to-completion Pod that was Ready -> Succeeded / Failed), or undefined when it has nothing to write.
 * `podIp` gives the address of a Pod that has none yet. Shared with the conformance rig's kubelet
 * stand-in (conformance/rig/kubelet.ts), which writes it to a real kube-apiserver.
 */
export function nextPodStatus(p: KObject, podIp: () => string): JsonMap | undefined {
  const phase = podPhase(p);
  if (phase === 'Succeeded' || phase === 'Failed') return undefined;
  const fail = wantsFailure(p);
  const restartPolicy = path(p, 'spec.restartPolicy') ?? 'Always';
  const runsToCompletion = restartPolicy === 'Never' || restartPolicy === 'OnFailure';
  const containers = (path(p, 'spec.containers') as JsonMap[] | undefined) ?? [];
  const inits = (path(p, 'spec.initContainers') as JsonMap[] | undefined) ?? [];
  const old = mapAt(p, 'status');
  const t = now();
  const started = typeof old['startTime'] === 'string' ? old['startTime'] : t;
  const podIP = typeof old['podIP'] === 'string' ? old['podIP'] : podIp();
  const base = (c: JsonMap): JsonMap => ({
    name: c['name'] ?? '',
    image: c['image'] ?? '',
    imageID: `${String(c['image'] ?? '')}@sha256:${'0'.repeat(64)}`,
    containerID: `containerd://${templateHash({ pod: p.metadata.uid ?? '', c: c['name'] ?? '' })}`,
  });
  const running = (c: JsonMap): JsonMap => ({
    ...base(c),
    ready: true,
    restartCount: 0,
    started: true,
    state: { running: { startedAt: started } },
    lastState: {},
  });
  const terminated = (c: JsonMap, code: number): JsonMap => ({
    ...base(c),
    ready: false,
    restartCount: 0,
    started: false,
    state: {
      terminated: {
        exitCode: code,
        reason: code === 0 ? 'Completed' : 'Error',
        startedAt: started,
        finishedAt: t,
        containerID: base(c)['containerID'] as Json,
      },
    },
    lastState: {},
  });
  const crashing = (c: JsonMap): JsonMap => ({
    ...base(c),
    ready: false,
    restartCount: 1,
    started: false,
    state: {
      waiting: {
        reason: 'CrashLoopBackOff',
        message: `back-off 10s restarting failed container=${String(c['name'] ?? '')} pod=${p.metadata.name ?? ''}_${p.metadata.namespace ?? ''}(${p.metadata.uid ?? ''})`,
      },
    },
    lastState: {
      terminated: {
        exitCode: 1,
        reason: 'Error',
        startedAt: started,
        finishedAt: t,
        containerID: base(c)['containerID'] as Json,
      },
    },
  });
  let conds = conditionsOf(p);
  const cond = (type: string, status: string, reason?: string, message?: string): void => {
    conds = setCondition(
      conds,
      { type, status, ...(reason ? { reason } : {}), ...(message ? { message } : {}) },
      { probeTime: null },
    );
  };
  const status: JsonMap = {
    hostIP: '172.18.0.2',
    hostIPs: [{ ip: '172.18.0.2' }],
    podIP,
    podIPs: [{ ip: podIP }],
    // Set by the API server at creation; computed only for a Pod that has none (never changed).
    qosClass: typeof old['qosClass'] === 'string' ? old['qosClass'] : podQosClass(p['spec'] as Json),
    startTime: started,
    initContainerStatuses: inits.map((c) => terminated(c, 0)),
  };
  if (inits.length === 0) delete status['initContainerStatuses'];
  const names = containers.map((c) => String(c['name'] ?? '')).join(' ');
  if (phase === 'Pending' && fail && !runsToCompletion) {
    status['phase'] = 'Running';
    status['containerStatuses'] = containers.map(crashing);
    cond('PodReadyToStartContainers', 'True');
    cond('Initialized', 'True');
    cond('Ready', 'False', 'ContainersNotReady', `containers with unready status: [${names}]`);
    cond('ContainersReady', 'False', 'ContainersNotReady', `containers with unready status: [${names}]`);
    cond('PodScheduled', 'True');
  } else if (phase === 'Pending') {
    status['phase'] = 'Running';
    status['containerStatuses'] = containers.map(running);
    cond('PodReadyToStartContainers', 'True');
    cond('Initialized', 'True');
    cond('Ready', 'True');
    cond('ContainersReady', 'True');
    cond('PodScheduled', 'True');
  } else if (runsToCompletion && conditionsOf(p).some((c) => c.type === 'Ready' && c.status === 'True')) {
    // A run-to-completion Pod finishes one step after it started.
    const code = fail ? 1 : 0;
    status['phase'] = fail ? 'Failed' : 'Succeeded';
    status['containerStatuses'] = containers.map((c) => terminated(c, code));
    const reason = fail ? 'PodFailed' : 'PodCompleted';
    cond('PodReadyToStartContainers', 'False');
    cond('Ready', 'False', reason);
    cond('ContainersReady', 'False', reason);
  } else return undefined;
  status['conditions'] = conds as unknown as Json;
  return status;
}
