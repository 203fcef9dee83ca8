/**
 * The DaemonSet controller of the workload simulation (one virtual node), after
 * `kubernetes/pkg/controller/daemon` (rules: simulate.ts).
 */
import type { JsonMap, KObject } from '../types.js';
import type { Simulation } from './shared.js';
import {
  DAEMONSET,
  POD,
  tkeyOf,
  path,
  mapAt,
  isDeleting,
  podReady,
  templateHash,
  omitZero,
  podFrom,
  SIMULATED_NODE,
} from './shared.js';

export function reconcileDaemonSet(sim: Simulation, ds: KObject): void {
  const ns = ds.metadata.namespace ?? '';
  const name = ds.metadata.name ?? '';
  const revision = templateHash(path(ds, 'spec.template'));
  const onDelete = path(ds, 'spec.updateStrategy.type') === 'OnDelete';
  const pods = sim.owned(POD, ds).filter((p) => !isDeleting(p));
  if (pods.length === 0) {
    sim.create(
      POD,
      ns,
      podFrom(ds, DAEMONSET, mapAt(ds, 'spec.template'), {
        labels: {
          'controller-revision-hash': revision,
          'pod-template-generation': String(ds.metadata.generation ?? 1),
        },
        spec: { nodeName: SIMULATED_NODE },
      }),
    );
  } else if (!onDelete) {
    for (const p of pods.slice(1)) sim.remove(POD, p);
    const p = pods[0]!;
    if (p.metadata.labels?.['controller-revision-hash'] !== revision) sim.remove(POD, p);
  }
  const fresh = sim.core.store.get(tkeyOf(DAEMONSET), ns, name) ?? ds;
  const live = sim.owned(POD, fresh).filter((p) => !isDeleting(p));
  const ready = live.filter(podReady).length;
  const updated = live.filter((p) => p.metadata.labels?.['controller-revision-hash'] === revision).length;
  const status: JsonMap = omitZero(
    {
      currentNumberScheduled: live.length,
      numberMisscheduled: 0,
      desiredNumberScheduled: 1,
      numberReady: ready,
      observedGeneration: fresh.metadata.generation ?? 1,
      updatedNumberScheduled: updated,
      numberAvailable: ready,
      numberUnavailable: Math.max(0, 1 - ready),
    },
    ['updatedNumberScheduled', 'numberAvailable', 'numberUnavailable'],
  );
  sim.writeStatus(DAEMONSET, fresh, status);
}
