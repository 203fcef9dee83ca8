/**
 * The ReplicaSet controller of the workload simulation, after `kubernetes/pkg/controller/replicaset`
 * (rules: simulate.ts).
 */
import type { JsonMap, KObject } from '../types.js';
import type { Simulation } from './shared.js';
import {
  REPLICASET,
  POD,
  tkeyOf,
  num,
  mapAt,
  isDeleting,
  podPhase,
  podReady,
  omitZero,
  podFrom,
} from './shared.js';

export function reconcileReplicaSet(sim: Simulation, rs: KObject): void {
  const ns = rs.metadata.namespace ?? '';
  const want = num(rs, 'spec.replicas', 1);
  const pods = sim
    .owned(POD, rs)
    .filter((p) => !isDeleting(p) && podPhase(p) !== 'Failed' && podPhase(p) !== 'Succeeded');
  const template = mapAt(rs, 'spec.template');
  for (let i = pods.length; i < want; i++) sim.create(POD, ns, podFrom(rs, REPLICASET, template, {}));
  if (pods.length > want) {
    // Not-ready Pods go first, then the newest (the real controller's ranking, simplified).
    const order = [...pods].sort(
      (a, b) =>
        Number(podReady(a)) - Number(podReady(b)) ||
        String(b.metadata.creationTimestamp).localeCompare(String(a.metadata.creationTimestamp)) ||
        String(b.metadata.name).localeCompare(String(a.metadata.name)),
    );
    for (const p of order.slice(0, pods.length - want)) sim.remove(POD, p);
  }
  const fresh = sim.core.store.get(tkeyOf(REPLICASET), ns, rs.metadata.name ?? '') ?? rs;
  const live = sim
    .owned(POD, fresh)
    .filter((p) => !isDeleting(p) && podPhase(p) !== 'Failed' && podPhase(p) !== 'Succeeded');
  const ready = live.filter(podReady).length;
  const status: JsonMap = omitZero(
    {
      replicas: live.length,
      fullyLabeledReplicas: live.length,
      readyReplicas: ready,
      availableReplicas: ready,
      observedGeneration: fresh.metadata.generation ?? 1,
    },
    ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'],
  );
  sim.writeStatus(REPLICASET, fresh, status);
}
