/**
 * The Deployment controller of the workload simulation, after `kubernetes/pkg/controller/deployment`
 * (rules: simulate.ts).
 */
import { now } from '../managed-fields.js';
import type { Json, JsonMap, KObject } from '../types.js';
import { clone, isMap } from '../types.js';
import type { Condition, Simulation } from './shared.js';
import {
  DEPLOYMENT,
  REPLICASET,
  tkeyOf,
  path,
  num,
  mapAt,
  conditionsOf,
  ownerRef,
  templateHash,
  intOrPercent,
  omitZero,
  setCondition,
} from './shared.js';

export function reconcileDeployment(sim: Simulation, d: KObject): void {
  const ns = d.metadata.namespace ?? '';
  const name = d.metadata.name ?? '';
  const replicas = num(d, 'spec.replicas', 1);
  const template = mapAt(d, 'spec.template');
  const hash = templateHash(template as Json);
  const paused = path(d, 'spec.paused') === true;
  const recreate = path(d, 'spec.strategy.type') === 'Recreate';
  const all = sim.owned(REPLICASET, d);
  const newRs = all.find((rs) => rs.metadata.labels?.['pod-template-hash'] === hash);
  const old = all.filter((rs) => rs !== newRs);
  let progressed = false;
  let created: string | undefined;

  if (!newRs && !paused) {
    const revision =
      Math.max(
        0,
        ...all.map((rs) => Number(rs.metadata.annotations?.['deployment.kubernetes.io/revision'] ?? 0) || 0),
      ) + 1;
    const rsName = `${name}-${hash}`;
    const tmeta = mapAt(template, 'metadata');
    const labels = { ...(isMap(tmeta['labels']) ? tmeta['labels'] : {}), 'pod-template-hash': hash };
    const selector = clone(mapAt(d, 'spec.selector'));
    selector['matchLabels'] = { ...mapAt(selector, 'matchLabels'), 'pod-template-hash': hash };
    const oldPods = old.reduce((n, rs) => n + num(rs, 'status.replicas', 0), 0);
    sim.create(REPLICASET, ns, {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: rsName,
        namespace: ns,
        labels,
        annotations: {
          'deployment.kubernetes.io/desired-replicas': String(replicas),
          'deployment.kubernetes.io/max-replicas': String(replicas + (recreate ? 0 : maxSurge(d, replicas))),
          'deployment.kubernetes.io/revision': String(revision),
        },
        ownerReferences: [ownerRef(d, DEPLOYMENT) as unknown as Json],
      },
      spec: {
        // Recreate starts the new ReplicaSet only once every old Pod is gone.
        replicas: recreate && oldPods > 0 ? 0 : replicas,
        selector,
        template: { ...clone(template), metadata: { ...clone(tmeta), labels } },
      },
    });
    created = rsName;
    progressed = true;
  }
  const current = newRs ? sim.core.store.get(tkeyOf(REPLICASET), ns, newRs.metadata.name ?? '') : undefined;
  if (current && !paused) {
    const oldPods = old.reduce((n, rs) => n + num(rs, 'status.replicas', 0), 0);
    const want = recreate && oldPods > 0 ? 0 : replicas;
    if (num(current, 'spec.replicas', 1) !== want) {
      const next = clone(current);
      (next['spec'] as JsonMap)['replicas'] = want;
      next.metadata.annotations = {
        ...next.metadata.annotations,
        'deployment.kubernetes.io/desired-replicas': String(replicas),
      };
      sim.update(REPLICASET, next);
      progressed = true;
    }
    const newAvailable =
      num(current, 'status.availableReplicas', 0) >= replicas &&
      num(current, 'spec.replicas', 1) === replicas;
    for (const rs of old) {
      if (num(rs, 'spec.replicas', 1) === 0 || (!recreate && !newAvailable)) continue;
      const next = clone(rs);
      (next['spec'] as JsonMap)['replicas'] = 0;
      sim.update(REPLICASET, next);
      progressed = true;
    }
  }
  deploymentStatus(sim, d, hash, replicas, progressed, created);
}

function maxSurge(d: KObject, replicas: number): number {
  const v = path(d, 'spec.strategy.rollingUpdate.maxSurge');
  if (typeof v === 'string' && v.endsWith('%')) return Math.ceil((Number(v.slice(0, -1)) * replicas) / 100);
  return typeof v === 'number' ? v : Math.ceil(replicas / 4);
}

function deploymentStatus(
  sim: Simulation,
  d: KObject,
  hash: string,
  replicas: number,
  progressed: boolean,
  created?: string,
): void {
  const all = sim.owned(REPLICASET, d);
  const newRs = all.find((rs) => rs.metadata.labels?.['pod-template-hash'] === hash);
  const sum = (p: string): number => all.reduce((n, rs) => n + num(rs, p, 0), 0);
  const total = sum('status.replicas');
  const updated = newRs ? num(newRs, 'status.replicas', 0) : 0;
  const ready = sum('status.readyReplicas');
  const available = sum('status.availableReplicas');
  const specTotal = all.reduce((n, rs) => n + num(rs, 'spec.replicas', 1), 0);
  const old = mapAt(d, 'status');
  const status: JsonMap = omitZero(
    {
      observedGeneration: d.metadata.generation ?? 1,
      replicas: total,
      updatedReplicas: updated,
      readyReplicas: ready,
      availableReplicas: available,
      unavailableReplicas: Math.max(0, specTotal - available),
    },
    ['replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas'],
  );
  const maxUnavailable =
    path(d, 'spec.strategy.type') === 'Recreate'
      ? 0
      : intOrPercent(
          path(d, 'spec.strategy.rollingUpdate.maxUnavailable'),
          replicas,
          Math.floor(replicas / 4),
        );
  let conds = conditionsOf(d);
  conds = setCondition(
    conds,
    available >= replicas - maxUnavailable
      ? {
          type: 'Available',
          status: 'True',
          reason: 'MinimumReplicasAvailable',
          message: 'Deployment has minimum availability.',
        }
      : {
          type: 'Available',
          status: 'False',
          reason: 'MinimumReplicasUnavailable',
          message: 'Deployment does not have minimum availability.',
        },
    { updateTime: true },
  );
  const rsName = newRs?.metadata.name ?? created ?? '';
  const complete =
    newRs !== undefined &&
    updated === replicas &&
    total === replicas &&
    available === replicas &&
    num(newRs, 'spec.replicas', 1) === replicas;
  const key = `${d.metadata.namespace ?? ''}/${d.metadata.name ?? ''}`;
  const counts = ['replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas'];
  const moved = progressed || counts.some((k) => old[k] !== status[k]);
  const prev = conds.find((c) => c.type === 'Progressing');
  if (complete) {
    conds = setCondition(
      conds,
      {
        type: 'Progressing',
        status: 'True',
        reason: 'NewReplicaSetAvailable',
        message: `ReplicaSet "${rsName}" has successfully progressed.`,
      },
      { updateTime: true },
    );
    sim.clearDeadline(key);
  } else if (path(d, 'spec.paused') === true) {
    conds = setCondition(
      conds,
      {
        type: 'Progressing',
        status: 'Unknown',
        reason: 'DeploymentPaused',
        message: 'Deployment is paused',
      },
      { updateTime: true },
    );
    sim.clearDeadline(key);
  } else if (
    moved ||
    !prev ||
    prev.reason === 'NewReplicaSetAvailable' ||
    prev.reason === 'DeploymentPaused'
  ) {
    const next = created
      ? {
          type: 'Progressing',
          status: 'True',
          reason: 'NewReplicaSetCreated',
          message: `Created new replica set "${rsName}"`,
        }
      : {
          type: 'Progressing',
          status: 'True',
          reason: 'ReplicaSetUpdated',
          message: `ReplicaSet "${rsName}" is progressing.`,
        };
    const at = now();
    conds = conds.filter((c) => c.type !== 'Progressing');
    // Progress refreshes lastUpdateTime even when the condition reads the same: the deadline counts from it.
    conds.push({
      ...next,
      lastUpdateTime: at,
      lastTransitionTime: prev && prev.status === 'True' ? (prev['lastTransitionTime'] ?? at) : at,
    } as Condition);
    sim.armDeadline(d, key, Date.parse(at));
  } else if (prev.status === 'True') {
    const deadline = num(d, 'spec.progressDeadlineSeconds', 600);
    const since = Date.parse(String(prev['lastUpdateTime'] ?? prev['lastTransitionTime'] ?? now()));
    if (Date.now() >= since + deadline * 1000) {
      conds = setCondition(
        conds,
        {
          type: 'Progressing',
          status: 'False',
          reason: 'ProgressDeadlineExceeded',
          message: `ReplicaSet "${rsName}" has timed out progressing.`,
        },
        { updateTime: true },
      );
      sim.clearDeadline(key);
    } else sim.armDeadline(d, key, since);
  }
  // The real controller lists Available before Progressing once both exist.
  conds.sort((a, b) => (a.type === 'Available' ? -1 : b.type === 'Available' ? 1 : 0));
  if (conds.length > 0) status['conditions'] = conds as unknown as Json;
  if (num(old, 'collisionCount', 0) > 0) status['collisionCount'] = old['collisionCount'] as Json;
  sim.writeStatus(DEPLOYMENT, d, status);
}
