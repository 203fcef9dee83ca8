/**
 * Workload simulation (opt-in, `simulateWorkloads` / `embedded-cluster --simulate-workloads`): the
 * embedded server has no kube-controller-manager and no kubelet, so without this nothing ever creates a
 * ReplicaSet or a Pod and no workload becomes healthy. This module plays the parts of the Deployment,
 * ReplicaSet, StatefulSet, DaemonSet and Job controllers and of a kubelet on one virtual node, closely
 * enough that Argo CD's health rules (src/health) give the verdicts they give for the real controllers'
 * statuses. It is a simulation: no container runs.
 *
 * What it does (each rule follows the upstream controller in `kubernetes/pkg/controller/...`):
 * - Deployment: one ReplicaSet per pod template, named `<deployment>-<pod-template-hash>`, owned by the
 *   Deployment (controller, blockOwnerDeletion), scaled to `spec.replicas`; older ReplicaSets are scaled to
 *   0 once the new one is fully available (Recreate: first). Status: observedGeneration, replicas,
 *   updatedReplicas, readyReplicas, availableReplicas, unavailableReplicas and the Available / Progressing
 *   conditions with the reasons and messages the real controller writes; a rollout that makes no progress
 *   for `spec.progressDeadlineSeconds` gets Progressing=False `ProgressDeadlineExceeded`.
 * - ReplicaSet: creates or deletes owned Pods (`generateName: <rs>-`) to match `spec.replicas`; status
 *   replicas, fullyLabeledReplicas, readyReplicas, availableReplicas, observedGeneration.
 * - StatefulSet: Pods `<sts>-0..N-1` created in order (OrderedReady waits for the previous one to be
 *   Ready), with `controller-revision-hash` = the update revision; a template change replaces Pods from the
 *   highest ordinal down (not for OnDelete). Status: replicas, readyReplicas, currentReplicas,
 *   updatedReplicas, availableReplicas, currentRevision, updateRevision, observedGeneration.
 * - DaemonSet: one Pod on the one virtual node; status desiredNumberScheduled, currentNumberScheduled,
 *   updatedNumberScheduled, numberReady, numberAvailable, numberUnavailable, observedGeneration.
 * - Job: runs `parallelism` Pods until `completions` succeeded (Complete, preceded by SuccessCriteriaMet,
 *   as Kubernetes 1.31+), or until more than `backoffLimit` failed (Failed with reason
 *   BackoffLimitExceeded, preceded by FailureTarget). succeeded/failed/active/ready/startTime/completionTime.
 * - Pod ("kubelet"): Pending -> Running with every container started and Ready (conditions
 *   PodReadyToStartContainers, Initialized, Ready, ContainersReady, PodScheduled); Pods whose
 *   restartPolicy is Never or OnFailure then finish: Succeeded (exit 0, reason Completed).
 *
 * Failure on request: a Pod annotated `gitops.kubectl.io/simulate-fail: "true"` (directly or through a pod
 * template), or any Pod of a Job annotated so, or a Pod with a container whose command is `false` or a
 * shell script ending in `false` or `exit N` (N > 0; shared.ts wantsFailure), fails: a restartPolicy Always Pod stays Running with its
 * containers in CrashLoopBackOff (what a crashing container looks like on a real node), a run-to-completion
 * Pod ends in phase Failed (exit 1, reason Error), and its Job ends Failed / BackoffLimitExceeded after
 * `backoffLimit + 1` failed Pods.
 *
 * Not simulated: scheduling constraints, resources, probes, minReadySeconds (Ready counts as available
 * at once), volumes and PersistentVolumeClaims of volumeClaimTemplates, ControllerRevision objects,
 * Indexed Jobs' indexes, suspended Jobs, CronJobs, graceful termination.
 *
 * Every write goes through the server's own write pipeline (`ApiCore`): status through the status
 * subresource with field manager `kube-controller-manager` or `kubelet`, so resourceVersions bump, watch
 * events fire and managedFields record who wrote what; deletions through the `Deleter` (garbage collection
 * of dependents by ownerReferences). A write that would change nothing is not sent.
 *
 * Timing: every controller step happens `delayMs` (default 25 ms) after the change that caused it, one
 * step per change, in the order the changes happened; so a Deployment becomes available a few steps
 * after it is created, waits in clients are real waits, and the outcome does not depend on timing.
 *
 * Layout: this file is the simulator's machinery (watching the store, batching steps, writing through the
 * pipeline); each controller is its own file in simulate/ (deployment, replicaset, statefulset, daemonset,
 * job, kubelet), with what they share in simulate/shared.ts.
 */
import type { ApiCore, RequestContext } from './api.js';
import type { Deleter } from './delete.js';
import { stableJson } from './meta.js';
import type { StoreEvent } from './store.js';
import type { JsonMap, KObject } from './types.js';
import { reconcileDaemonSet } from './simulate/daemonset.js';
import { reconcileDeployment } from './simulate/deployment.js';
import { reconcileJob } from './simulate/job.js';
import { reconcilePod } from './simulate/kubelet.js';
import { reconcileReplicaSet } from './simulate/replicaset.js';
import type { Kind, Simulation } from './simulate/shared.js';
import {
  DEPLOYMENT,
  REPLICASET,
  STATEFULSET,
  DAEMONSET,
  JOB,
  POD,
  KINDS,
  tkeyOf,
  BY_TKEY,
  BY_KIND,
  CONTROLLER_MANAGER,
  path,
  isDeleting,
  controllerRef,
} from './simulate/shared.js';
import { reconcileStatefulSet } from './simulate/statefulset.js';

export { SIMULATE_FAIL_ANNOTATION, SIMULATED_NODE } from './simulate/shared.js';
export const DEFAULT_SIMULATION_DELAY_MS = 25;

export interface WorkloadSimulatorOptions {
  /** Delay of each controller step after the change that caused it, in ms (default 25). */
  delayMs?: number;
}

interface Key {
  kind: Kind;
  namespace: string;
  name: string;
}

export class WorkloadSimulator implements Simulation {
  private readonly delayMs: number;
  private pending = new Map<string, Key>();
  private timer: NodeJS.Timeout | undefined;
  private readonly deadlines = new Map<string, NodeJS.Timeout>();
  private unsubscribe: (() => void) | undefined;
  private podIps = 0;
  private stopped = false;

  constructor(
    readonly core: ApiCore,
    private readonly deleter: Deleter,
    opts: WorkloadSimulatorOptions = {},
  ) {
    this.delayMs = Math.max(0, opts.delayMs ?? DEFAULT_SIMULATION_DELAY_MS);
  }

  /** Starts watching the store; workloads already stored (a loaded --data file) are reconciled too. */
  start(): void {
    this.unsubscribe = this.core.store.subscribe((e) => this.onEvent(e));
    for (const kind of KINDS) {
      for (const o of this.core.store.list(tkeyOf(kind)))
        this.enqueue(kind, o.metadata.namespace, o.metadata.name);
    }
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearTimeout(this.timer);
    for (const t of this.deadlines.values()) clearTimeout(t);
    this.deadlines.clear();
    this.pending.clear();
  }

  private onEvent(e: StoreEvent): void {
    const kind = BY_TKEY.get(e.tkey);
    if (!kind) return;
    if (e.type !== 'DELETED') this.enqueue(kind, e.obj.metadata.namespace, e.obj.metadata.name);
    // The owner's controller reacts to its dependents (a Pod's phase, a ReplicaSet's status...).
    const ref = controllerRef(e.obj);
    if (!ref) return;
    const group = ref.apiVersion.includes('/') ? (ref.apiVersion.split('/')[0] ?? '') : '';
    const ownerKind = BY_KIND.get(`${group}/${ref.kind}`);
    if (ownerKind) this.enqueue(ownerKind, e.obj.metadata.namespace, ref.name);
  }

  private enqueue(kind: Kind, namespace: string | undefined, name: string | undefined): void {
    if (this.stopped || !namespace || !name) return;
    const k = `${tkeyOf(kind)}/${namespace}/${name}`;
    if (!this.pending.has(k)) this.pending.set(k, { kind, namespace, name });
    this.timer ??= setTimeout(() => this.flush(), this.delayMs);
  }

  /** One step: every object changed since the last step is reconciled once, in the order of its change. */
  private flush(): void {
    this.timer = undefined;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    for (const key of batch) {
      if (this.stopped) return;
      const obj = this.core.store.get(tkeyOf(key.kind), key.namespace, key.name);
      if (!obj || isDeleting(obj)) continue;
      try {
        this.reconcile(key.kind, obj);
      } catch {
        // A write the server refused (a terminating namespace, an invalid template): the real controller
        // would retry with backoff; here the next change of the object retries.
      }
    }
  }

  private reconcile(kind: Kind, obj: KObject): void {
    switch (kind) {
      case DEPLOYMENT:
        return reconcileDeployment(this, obj);
      case REPLICASET:
        return reconcileReplicaSet(this, obj);
      case STATEFULSET:
        return reconcileStatefulSet(this, obj);
      case DAEMONSET:
        return reconcileDaemonSet(this, obj);
      case JOB:
        return reconcileJob(this, obj);
      case POD:
        return reconcilePod(this, obj);
    }
  }

  // --- writes through the API pipeline ---

  private ctx(
    kind: Kind,
    namespace: string,
    name: string | undefined,
    manager: string,
    status = false,
  ): RequestContext {
    const type = this.core.registry.byPlural(kind.group, kind.version, kind.plural);
    if (!type) throw new Error(`${kind.plural} not served`);
    return {
      type,
      version: kind.version,
      namespace,
      ...(name !== undefined ? { name } : {}),
      ...(status ? { subresource: 'status' } : {}),
      query: new URLSearchParams({ fieldManager: manager }),
      userAgent: `${manager}/v1.32.0`,
    };
  }

  create(kind: Kind, namespace: string, obj: JsonMap, manager = CONTROLLER_MANAGER): void {
    this.core.create(this.ctx(kind, namespace, undefined, manager), JSON.stringify(obj));
  }

  update(kind: Kind, obj: KObject, manager = CONTROLLER_MANAGER): void {
    const ns = obj.metadata.namespace ?? '';
    this.core.update(this.ctx(kind, ns, obj.metadata.name, manager), JSON.stringify(obj));
  }

  /** Writes `status` through the status subresource, unless it is what is stored already. */
  writeStatus(kind: Kind, obj: KObject, status: JsonMap, manager = CONTROLLER_MANAGER): void {
    if (stableJson(obj['status'] ?? {}) === stableJson(status)) return;
    const ns = obj.metadata.namespace ?? '';
    this.core.update(
      this.ctx(kind, ns, obj.metadata.name, manager, true),
      JSON.stringify({ ...obj, status }),
    );
  }

  remove(kind: Kind, obj: KObject): void {
    const ns = obj.metadata.namespace ?? '';
    this.deleter.delete(
      this.ctx(kind, ns, obj.metadata.name, CONTROLLER_MANAGER),
      JSON.stringify({ propagationPolicy: 'Background', preconditions: { uid: obj.metadata.uid } }),
    );
  }

  /** Objects of a kind in a namespace whose controller is `owner`. */
  owned(kind: Kind, owner: KObject): KObject[] {
    const uid = owner.metadata.uid;
    return this.core.store
      .list(tkeyOf(kind), owner.metadata.namespace)
      .filter((o) => controllerRef(o)?.uid === uid);
  }

  armDeadline(d: KObject, key: string, since: number): void {
    const seconds = path(d, 'spec.progressDeadlineSeconds');
    if (typeof seconds !== 'number') return;
    this.clearDeadline(key);
    const wait = Math.max(0, since + seconds * 1000 - Date.now()) + 5;
    const timer = setTimeout(() => {
      this.deadlines.delete(key);
      this.enqueue(DEPLOYMENT, d.metadata.namespace, d.metadata.name);
    }, wait);
    timer.unref();
    this.deadlines.set(key, timer);
  }

  clearDeadline(key: string): void {
    const t = this.deadlines.get(key);
    if (t) clearTimeout(t);
    this.deadlines.delete(key);
  }

  nextPodIp(): string {
    const n = ++this.podIps;
    return `10.244.${Math.floor(n / 250) % 250}.${(n % 250) + 2}`;
  }
}
