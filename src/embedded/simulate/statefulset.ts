/**
 * The StatefulSet controller of the workload simulation, after `kubernetes/pkg/controller/statefulset`
 * (rules: simulate.ts).
 */
import type { JsonMap, KObject } from '../types.js';
import type { Simulation } from './shared.js';
import {
  STATEFULSET,
  POD,
  tkeyOf,
  path,
  num,
  mapAt,
  isDeleting,
  podReady,
  templateHash,
  omitZero,
  podFrom,
} from './shared.js';

export function reconcileStatefulSet(sim: Simulation, sts: KObject): void {
  const ns = sts.metadata.namespace ?? '';
  const name = sts.metadata.name ?? '';
  const replicas = num(sts, 'spec.replicas', 1);
  const revision = `${name}-${templateHash(path(sts, 'spec.template'))}`;
  const ordered = path(sts, 'spec.podManagementPolicy') !== 'Parallel';
  const onDelete = path(sts, 'spec.updateStrategy.type') === 'OnDelete';
  const podName = (i: number): string => `${name}-${i}`;
  const pods = sim.owned(POD, sts).filter((p) => !isDeleting(p));
  const byName = new Map(pods.map((p) => [p.metadata.name ?? '', p]));
  const template = mapAt(sts, 'spec.template');
  let waiting = false;
  for (let i = 0; i < replicas; i++) {
    const p = byName.get(podName(i));
    if (!p) {
      if (waiting) break;
      sim.create(
        POD,
        ns,
        podFrom(sts, STATEFULSET, template, {
          name: podName(i),
          labels: {
            'controller-revision-hash': revision,
            'statefulset.kubernetes.io/pod-name': podName(i),
            'apps.kubernetes.io/pod-index': String(i),
          },
          spec: {
            hostname: podName(i),
            ...(typeof path(sts, 'spec.serviceName') === 'string'
              ? { subdomain: path(sts, 'spec.serviceName') as string }
              : {}),
          },
        }),
      );
      if (ordered) waiting = true;
    } else if (ordered && !podReady(p)) waiting = true;
  }
  // Scale down from the highest ordinal.
  const extra = pods
    .filter((p) => Number(p.metadata.name?.slice(name.length + 1)) >= replicas)
    .sort((a, b) =>
      String(b.metadata.name).localeCompare(String(a.metadata.name), undefined, { numeric: true }),
    );
  if (extra.length > 0) sim.remove(POD, extra[0]!);
  // Rolling update: replace the highest outdated Pod once every Pod is Ready.
  const inRange = pods.filter((p) => !extra.includes(p));
  if (!onDelete && extra.length === 0 && inRange.length === replicas && inRange.every(podReady)) {
    const partition = num(sts, 'spec.updateStrategy.rollingUpdate.partition', 0);
    const outdated = inRange
      .filter(
        (p) =>
          p.metadata.labels?.['controller-revision-hash'] !== revision &&
          Number(p.metadata.name?.slice(name.length + 1)) >= partition,
      )
      .sort((a, b) =>
        String(b.metadata.name).localeCompare(String(a.metadata.name), undefined, { numeric: true }),
      );
    if (outdated.length > 0) sim.remove(POD, outdated[0]!);
  }
  const fresh = sim.core.store.get(tkeyOf(STATEFULSET), ns, name) ?? sts;
  const live = sim.owned(POD, fresh).filter((p) => !isDeleting(p));
  const old = mapAt(fresh, 'status');
  const ready = live.filter(podReady).length;
  const updated = live.filter((p) => p.metadata.labels?.['controller-revision-hash'] === revision).length;
  let currentRevision = typeof old['currentRevision'] === 'string' ? old['currentRevision'] : revision;
  if (updated === live.length && live.length === replicas && ready === replicas) currentRevision = revision;
  const current = live.filter(
    (p) => p.metadata.labels?.['controller-revision-hash'] === currentRevision,
  ).length;
  const status: JsonMap = omitZero(
    {
      observedGeneration: fresh.metadata.generation ?? 1,
      replicas: live.length,
      readyReplicas: ready,
      currentReplicas: current,
      updatedReplicas: updated,
      currentRevision,
      updateRevision: revision,
      collisionCount: 0,
      availableReplicas: ready,
    },
    ['readyReplicas', 'currentReplicas', 'updatedReplicas'],
  );
  sim.writeStatus(STATEFULSET, fresh, status);
}
