/**
 * Families: health. Argo CD's own health test objects (test/fixtures/health-vectors, from gitops-engine's
 * pkg/health/testdata; test/fixtures/lua-health-scripts, from resource_customizations) become cases: the
 * object (without status) in Git, the same object live with its recorded status written through the status
 * subresource. Both sides judge the same live object, whatever the cluster's controllers do to it after.
 *
 * The rig's controllers are kept off the objects whose recorded status they would otherwise replace (or
 * whose recorded status the API server would refuse once they had moved on): a Job names another manager
 * in `spec.managedBy` (kube-controller-manager's Job controller skips it, JobManagedBy is on by default in
 * Kubernetes 1.32+), and a live Pod carries the annotation the rig's kubelet stand-in leaves alone
 * (conformance/rig/kubelet.ts). A Job's recorded status gets the interim condition kube-apiserver's status
 * validation requires beside a terminal one (FailureTarget before Failed, SuccessCriteriaMet before
 * Complete, in the order the Job controller writes them); Argo CD's Job health reads neither (gitops-engine
 * health_job.go reads Failed, Complete and Suspended only), so the verdict is the vector's.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { Obj } from '../../compare/case.js';
import { STANDIN_IGNORE_ANNOTATION } from '../../rig/paths.js';
import { app, cleanRecorded, docs, tracked, type CaseDraft } from './lib.js';

/** Vectors left out, and why (docs/conformance.md lists them too). */
export const HEALTH_LEFT_OUT: Record<string, string> = {
  'application-healthy.yaml': 'an Application has no health (covered by the app-of-apps cases)',
  'application-degraded.yaml': 'an Application has no health (covered by the app-of-apps cases)',
  'knative-service.yaml': 'needs the Knative CRDs, not a built-in kind',
  'pod-deletion.yaml': 'a deletionTimestamp cannot be created, only reached by a delete',
};

/** `spec.managedBy` of every Job vector: not `kubernetes.io/job-controller`, so no controller writes it. */
export const RECORDED_JOB_MANAGER = 'conformance.gitops.kubectl.io/recorded-status';

function groupOf(apiVersion: string): string {
  return apiVersion.includes('/') ? apiVersion.split('/')[0]! : '';
}

/** A recorded object made creatable: no node, service account token, cluster IPs, PV binding; unique names. */
function creatable(o: Obj): Obj {
  const x = cleanRecorded(o);
  const spec = x.spec ?? {};
  if (x.kind === 'Pod') {
    delete spec.nodeName;
    delete spec.serviceAccount;
    delete spec.serviceAccountName;
    const tokenVolumes = new Set(
      ((spec.volumes ?? []) as Obj[])
        .filter((v) => /-token-/.test(v.secret?.secretName ?? ''))
        .map((v) => v.name),
    );
    spec.volumes = ((spec.volumes ?? []) as Obj[]).filter((v) => !tokenVolumes.has(v.name));
    if (spec.volumes.length === 0) delete spec.volumes;
    for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])] as Obj[]) {
      c.volumeMounts = ((c.volumeMounts ?? []) as Obj[]).filter((m) => !tokenVolumes.has(m.name));
      if (c.volumeMounts.length === 0) delete c.volumeMounts;
    }
  }
  if (x.kind === 'Service') {
    delete spec.clusterIP;
    delete spec.clusterIPs;
    for (const p of (spec.ports ?? []) as Obj[]) delete p.nodePort;
  }
  if (x.kind === 'PersistentVolumeClaim') delete spec.volumeName;
  // networking.k8s.io/v1 requires a path's pathType (the vectors were recorded at extensions/v1beta1).
  // and a backend as `service: {name, port}` (v1beta1's serviceName/servicePort).
  if (x.kind === 'Ingress') {
    const v1Backend = (b: Obj | undefined): Obj | undefined => {
      if (!b || b.service || b.resource || b.serviceName === undefined) return b;
      const port = b.servicePort;
      return {
        service: { name: b.serviceName, port: typeof port === 'number' ? { number: port } : { name: port } },
      };
    };
    if (spec.backend) {
      spec.defaultBackend = v1Backend(spec.backend);
      delete spec.backend;
    }
    for (const rule of (spec.rules ?? []) as Obj[])
      for (const path of (rule.http?.paths ?? []) as Obj[]) {
        path.pathType ??= 'ImplementationSpecific';
        path.backend = v1Backend(path.backend);
      }
  }
  // A Job's selector and controller-uid labels are the server's (a create that names them is refused).
  if (x.kind === 'Job') {
    delete spec.selector;
    spec.managedBy = RECORDED_JOB_MANAGER;
    const labels = spec.template?.metadata?.labels as Obj | undefined;
    for (const k of [
      'controller-uid',
      'batch.kubernetes.io/controller-uid',
      'job-name',
      'batch.kubernetes.io/job-name',
    ])
      if (labels) delete labels[k];
  }
  if (x.kind === 'APIService') {
    // v1beta1 is no longer served (Kubernetes 1.22+): the same object at v1.
    x.apiVersion = 'apiregistration.k8s.io/v1';
    spec.group = '${NS}.conformance.example';
    x.metadata.name = `${spec.version}.\${NS}.conformance.example`;
    delete spec.service;
  }
  if (x.kind === 'CustomResourceDefinition') {
    // apiextensions.k8s.io/v1 requires a schema per version and refuses preserveUnknownFields: true.
    delete spec.preserveUnknownFields;
    for (const v of (spec.versions ?? []) as Obj[])
      v.schema ??= { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };
    spec.group = '${NS}.conformance.example';
    x.metadata.name = `${spec.names.plural}.\${NS}.conformance.example`;
  }
  if (x.metadata.annotations)
    delete x.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'];
  return x;
}

/**
 * A recorded status with one condition per type, the last kept: the API server refuses a repeated type
 * (conditions are a map keyed by type), as in the PodDisruptionBudget vector `degraded`, whose second
 * DisruptionAllowed (SyncFailed) is the one Argo CD's Lua check reports.
 */
function uniqueConditions(status: Obj): Obj {
  if (!Array.isArray(status.conditions)) return status;
  const byType = new Map<string, Obj>();
  for (const c of status.conditions as Obj[]) {
    byType.delete(String(c.type));
    byType.set(String(c.type), c);
  }
  return { ...status, conditions: [...byType.values()] };
}

/**
 * A Job's recorded status as kube-apiserver 1.34 takes it (batch validation `validateJobStatus`, with
 * JobManagedBy on): Failed=True needs FailureTarget=True, Complete=True needs SuccessCriteriaMet=True. The
 * interim condition is added just before the terminal one, as the Job controller writes it first: a
 * FailureTarget with the Failed condition's reason, message and times (newFailedConditionForFailureTarget
 * copies them the other way), a SuccessCriteriaMet with the controller's reason and message
 * (newSuccessCondition) and the Complete condition's times.
 */
export function jobStatusAsServerTakes(status: Obj): Obj {
  const conds = (status.conditions ?? []) as Obj[];
  const isTrue = (type: string): boolean => conds.some((c) => c.type === type && c.status === 'True');
  const out: Obj[] = [];
  for (const c of conds) {
    const times = { lastProbeTime: c.lastProbeTime, lastTransitionTime: c.lastTransitionTime };
    if (c.type === 'Failed' && c.status === 'True' && !isTrue('FailureTarget'))
      out.push({ ...times, message: c.message, reason: c.reason, status: 'True', type: 'FailureTarget' });
    if (c.type === 'Complete' && c.status === 'True' && !isTrue('SuccessCriteriaMet'))
      out.push({
        ...times,
        message: 'Reached expected number of succeeded pods',
        reason: 'CompletionsReached',
        status: 'True',
        type: 'SuccessCriteriaMet',
      });
    out.push(c);
  }
  return conds.length === 0 ? status : { ...status, conditions: out };
}

function healthCase(name: string, intent: string, provenance: string, recorded: Obj): CaseDraft {
  const target = creatable(recorded);
  const clusterScoped = ['APIService', 'CustomResourceDefinition'].includes(target.kind);
  const group = groupOf(target.apiVersion);
  const live = structuredClone(target);
  live.metadata.annotations = {
    ...(live.metadata.annotations ?? {}),
    ...tracked(group, target.kind, target.metadata.name, clusterScoped ? '' : '${NS}').annotations,
  };
  if (target.kind === 'Pod') live.metadata.annotations[STANDIN_IGNORE_ANNOTATION] = 'true';
  if (recorded.status) live.status = uniqueConditions(recorded.status);
  if (live.status && target.kind === 'Job') live.status = jobStatusAsServerTakes(live.status);
  return {
    name,
    intent,
    provenance,
    repo: { 'app/object.yaml': docs(target) },
    live: [live],
    app: app(),
    phases: ['refresh', 'controller'],
  };
}

export function health(fixtures: string): CaseDraft[] {
  const dir = join(fixtures, 'health-vectors');
  const vectors = JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8')) as {
    cases: {
      file: string;
      kind: string;
      expectedStatus: string | null;
      notes: string;
      upstream: { path: string };
    }[];
  };
  const out: CaseDraft[] = [];
  for (const v of vectors.cases) {
    if (HEALTH_LEFT_OUT[v.file]) continue;
    const recorded = parse(readFileSync(join(dir, v.file), 'utf8'), { uniqueKeys: false }) as Obj;
    out.push(
      healthCase(
        `health-${v.file.replace(/\.yaml$/, '')}`,
        `${v.kind} health (Argo CD's unit test says ${v.expectedStatus ?? 'no health'}): ${v.notes.split('. ')[0]}`,
        `argoproj/argo-cd 37ee0097 ${v.upstream.path} (test/fixtures/health-vectors/${v.file})`,
        recorded,
      ),
    );
  }
  const lua: [string, string, string[]][] = [
    [
      'batch',
      'CronJob',
      ['healthy', 'never-scheduled', 'degraded', 'never-succeeded', 'active', 'suspended'],
    ],
    ['policy', 'PodDisruptionBudget', ['healthy', 'degraded', 'progressing']],
    [
      'apiextensions.k8s.io',
      'CustomResourceDefinition',
      ['crd-v1-healthy', 'crd-v1-no-conditions-progressing'],
    ],
  ];
  for (const [group, kind, files] of lua)
    for (const f of files) {
      const rel = `lua-health-scripts/${group}/${kind}/testdata/${f}.yaml`;
      const recorded = parse(readFileSync(join(fixtures, rel), 'utf8'), { uniqueKeys: false }) as Obj;
      out.push(
        healthCase(
          `lua-${kind.toLowerCase()}-${f}`,
          `${kind} health through Argo CD's built-in Lua script (${f})`,
          `argoproj/argo-cd 37ee0097 resource_customizations/${group}/${kind}/testdata/${f}.yaml (test/fixtures/${rel})`,
          recorded,
        ),
      );
    }
  return out;
}
