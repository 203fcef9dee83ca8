/**
 * The workload simulation (`simulateWorkloads`): the statuses it writes must get the verdicts Argo CD's
 * health rules (src/health) give for the real controllers' statuses, owner references must be set as the
 * real controllers set them (so garbage collection follows them), and every status write goes through the
 * status subresource.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { getResourceHealth } from '../../src/health/index.js';
import { SIMULATE_FAIL_ANNOTATION } from '../../src/embedded/index.js';
import { api, useEmbeddedCluster, waitForObject } from '../support/embedded.js';

const NS = 'default';
const APPS = `/apis/apps/v1/namespaces/${NS}`;
const BATCH = `/apis/batch/v1/namespaces/${NS}`;
const CORE = `/api/v1/namespaces/${NS}`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Obj = any;

const health = (o: Obj): string | undefined => getResourceHealth(o)?.status;
const healthOf = (status: string) => (o: Obj) => o !== undefined && health(o) === status;

function podTemplate(
  app: string,
  opts: { annotations?: Record<string, string>; image?: string; restartPolicy?: string } = {},
): Obj {
  return {
    metadata: { labels: { app }, ...(opts.annotations ? { annotations: opts.annotations } : {}) },
    spec: {
      ...(opts.restartPolicy ? { restartPolicy: opts.restartPolicy } : {}),
      containers: [{ name: 'main', image: opts.image ?? 'nginx:1.27' }],
    },
  };
}

function deployment(name: string, replicas: number, extra: Obj = {}, template: Obj = podTemplate(name)): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: { replicas, selector: { matchLabels: { app: name } }, template, ...extra },
  };
}

async function create(cluster: Parameters<typeof api>[0], path: string, body: Obj): Promise<Obj> {
  const res = await api(cluster, 'POST', path, body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

async function list(cluster: Parameters<typeof api>[0], path: string): Promise<Obj[]> {
  const res = await api(cluster, 'GET', path);
  assert.equal(res.status, 200);
  // List items carry no apiVersion/kind (as on a real server); health needs them.
  const kind = String(res.body.kind).replace(/List$/, '');
  return res.body.items.map((o: Obj) => ({ apiVersion: res.body.apiVersion, kind, ...o }));
}

const ownedBy = (owner: Obj) => (o: Obj) =>
  (o.metadata.ownerReferences ?? []).some((r: Obj) => r.uid === owner.metadata.uid && r.controller === true);

describe('embedded server: workload simulation, field by field as the real controllers write it', () => {
  const fx = useEmbeddedCluster({ simulateWorkloads: { delayMs: 5 } });

  it('rolls a Deployment out through a ReplicaSet and Pods until Argo CD calls it Healthy', async () => {
    const created = await create(fx.cluster, `${APPS}/deployments`, deployment('web', 2));
    assert.equal(health(created), 'Progressing');
    // Follow the Deployment's own watch events: the statuses in between are Progressing, the last Healthy.
    const seen: string[] = [];
    const done = await waitForObject(fx.cluster, `${APPS}/deployments/web`, (o) => {
      seen.push(`${health(o)}@${o.metadata.resourceVersion}`);
      return health(o) === 'Healthy';
    });
    assert.ok(seen.length >= 2, seen.join(' '));
    assert.ok(
      seen.slice(0, -1).every((s) => s.startsWith('Progressing@')),
      seen.join(' '),
    );
    const rvs = seen.map((s) => Number(s.split('@')[1]));
    assert.deepEqual(
      [...rvs].sort((a, b) => a - b),
      rvs,
    );

    const s = done.status;
    assert.equal(s.observedGeneration, 1);
    assert.equal(s.replicas, 2);
    assert.equal(s.updatedReplicas, 2);
    assert.equal(s.readyReplicas, 2);
    assert.equal(s.availableReplicas, 2);
    assert.equal(s.unavailableReplicas, undefined);
    const [available, progressing] = s.conditions;
    assert.equal(available.type, 'Available');
    assert.equal(available.status, 'True');
    assert.equal(available.reason, 'MinimumReplicasAvailable');
    assert.equal(progressing.type, 'Progressing');
    assert.equal(progressing.reason, 'NewReplicaSetAvailable');

    const rss = (await list(fx.cluster, `${APPS}/replicasets`)).filter(ownedBy(done));
    assert.equal(rss.length, 1);
    const rs = rss[0];
    assert.match(
      progressing.message,
      new RegExp(`ReplicaSet "${rs.metadata.name}" has successfully progressed`),
    );
    assert.equal(rs.metadata.name, `web-${rs.metadata.labels['pod-template-hash']}`);
    assert.deepEqual(rs.metadata.ownerReferences, [
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: 'web',
        uid: done.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    assert.equal(rs.metadata.annotations['deployment.kubernetes.io/revision'], '1');
    assert.equal(health(rs), 'Healthy');
    assert.equal(rs.status.readyReplicas, 2);

    const pods = (await list(fx.cluster, `${CORE}/pods`)).filter(ownedBy(rs));
    assert.equal(pods.length, 2);
    for (const p of pods) {
      assert.equal(p.status.phase, 'Running');
      assert.equal(health(p), 'Healthy');
      assert.equal(p.metadata.labels['pod-template-hash'], rs.metadata.labels['pod-template-hash']);
      assert.ok(p.metadata.name.startsWith(`${rs.metadata.name}-`));
      assert.ok(p.status.conditions.some((c: Obj) => c.type === 'Ready' && c.status === 'True'));
    }
    // Status went through the status subresource, under the controller's and the kubelet's managers.
    const statusWriter = (o: Obj) =>
      o.metadata.managedFields.find((m: Obj) => m.subresource === 'status')?.manager;
    assert.equal(statusWriter(done), 'kube-controller-manager');
    assert.equal(statusWriter(pods[0]), 'kubelet');
  });

  it('rolls out a new template: a second ReplicaSet, the old one scaled to 0, Healthy again', async () => {
    const before = await waitForObject(fx.cluster, `${APPS}/deployments/web`, healthOf('Healthy'));
    const patched = await api(
      fx.cluster,
      'PATCH',
      `${APPS}/deployments/web`,
      { spec: { template: { spec: { containers: [{ name: 'main', image: 'nginx:1.28' }] } } } },
      'application/strategic-merge-patch+json',
    );
    assert.equal(patched.status, 200);
    assert.equal(patched.body.metadata.generation, 2);
    assert.equal(health(patched.body), 'Progressing');
    const after = await waitForObject(
      fx.cluster,
      `${APPS}/deployments/web`,
      (o) => o.status.observedGeneration === 2 && health(o) === 'Healthy',
    );
    const rss = (await list(fx.cluster, `${APPS}/replicasets`)).filter(ownedBy(after));
    assert.equal(rss.length, 2);
    const byRevision = new Map(
      rss.map((r) => [r.metadata.annotations['deployment.kubernetes.io/revision'], r]),
    );
    assert.equal(byRevision.get('1').spec.replicas, 0);
    assert.equal(byRevision.get('2').spec.replicas, 2);
    assert.equal(byRevision.get('2').spec.template.spec.containers[0].image, 'nginx:1.28');
    assert.match(after.status.conditions[1].message, new RegExp(byRevision.get('2').metadata.name));
    await waitForObject(
      fx.cluster,
      `${APPS}/replicasets/${byRevision.get('1').metadata.name}`,
      (o) => o.status.replicas === 0,
    );
    const pods = await list(fx.cluster, `${CORE}/pods?labelSelector=app%3Dweb`);
    const images = pods.filter((p) => !p.metadata.deletionTimestamp).map((p) => p.spec.containers[0].image);
    assert.deepEqual(images, ['nginx:1.28', 'nginx:1.28']);
    assert.notEqual(before.metadata.resourceVersion, after.metadata.resourceVersion);
  });

  it('garbage-collects ReplicaSets and Pods through the owner references when the Deployment goes', async () => {
    const d = await waitForObject(fx.cluster, `${APPS}/deployments/web`, healthOf('Healthy'));
    const res = await api(fx.cluster, 'DELETE', `${APPS}/deployments/web`, {
      propagationPolicy: 'Foreground',
    });
    assert.ok(res.status === 200 || res.status === 202, JSON.stringify(res.body));
    await waitForObject(fx.cluster, `${APPS}/deployments/web`, (o) => o === undefined);
    const rss = (await list(fx.cluster, `${APPS}/replicasets`)).filter(ownedBy(d));
    assert.deepEqual(rss, []);
    const pods = await list(fx.cluster, `${CORE}/pods?labelSelector=app%3Dweb`);
    assert.deepEqual(
      pods.filter((p) => !p.metadata.deletionTimestamp),
      [],
    );
  });

  it('a crashing Deployment is Progressing, then Degraded when its progress deadline passes', async () => {
    const fail = podTemplate('crash', { annotations: { [SIMULATE_FAIL_ANNOTATION]: 'true' } });
    await create(
      fx.cluster,
      `${APPS}/deployments`,
      deployment('crash', 1, { progressDeadlineSeconds: 1 }, fail),
    );
    const d = await waitForObject(fx.cluster, `${APPS}/deployments/crash`, healthOf('Degraded'));
    assert.equal(getResourceHealth(d)?.message, 'Deployment "crash" exceeded its progress deadline');
    const progressing = d.status.conditions.find((c: Obj) => c.type === 'Progressing');
    assert.equal(progressing.status, 'False');
    assert.equal(progressing.reason, 'ProgressDeadlineExceeded');
    assert.equal(d.status.unavailableReplicas, 1);
    const pods = await list(fx.cluster, `${CORE}/pods?labelSelector=app%3Dcrash`);
    assert.equal(pods.length, 1);
    assert.equal(pods[0].status.phase, 'Running');
    assert.equal(pods[0].status.containerStatuses[0].state.waiting.reason, 'CrashLoopBackOff');
    assert.equal(health(pods[0]), 'Degraded');
  });

  it('a StatefulSet creates ordered Pods and reports a finished rolling update', async () => {
    await create(fx.cluster, `${APPS}/statefulsets`, {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db' },
      spec: {
        replicas: 3,
        serviceName: 'db',
        selector: { matchLabels: { app: 'db' } },
        template: podTemplate('db'),
      },
    });
    const sts = await waitForObject(fx.cluster, `${APPS}/statefulsets/db`, healthOf('Healthy'));
    assert.equal(sts.status.readyReplicas, 3);
    assert.equal(sts.status.observedGeneration, 1);
    assert.equal(sts.status.currentRevision, sts.status.updateRevision);
    assert.match(sts.status.updateRevision, /^db-/);
    const pods = (await list(fx.cluster, `${CORE}/pods`)).filter(ownedBy(sts));
    assert.deepEqual(pods.map((p) => p.metadata.name).sort(), ['db-0', 'db-1', 'db-2']);
    for (const p of pods)
      assert.equal(p.metadata.labels['controller-revision-hash'], sts.status.updateRevision);

    // A template change replaces the Pods, then the revisions agree again.
    await api(
      fx.cluster,
      'PATCH',
      `${APPS}/statefulsets/db`,
      { spec: { template: { metadata: { labels: { app: 'db', v: '2' } } } } },
      'application/merge-patch+json',
    );
    const rolled = await waitForObject(
      fx.cluster,
      `${APPS}/statefulsets/db`,
      (o) => o.status.observedGeneration === 2 && health(o) === 'Healthy',
    );
    assert.notEqual(rolled.status.updateRevision, sts.status.updateRevision);
    assert.equal(rolled.status.currentRevision, rolled.status.updateRevision);
    assert.equal(rolled.status.updatedReplicas, 3);
  });

  it('a DaemonSet schedules its Pod on the one virtual node and is Healthy', async () => {
    await create(fx.cluster, `${APPS}/daemonsets`, {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent' },
      spec: { selector: { matchLabels: { app: 'agent' } }, template: podTemplate('agent') },
    });
    const ds = await waitForObject(fx.cluster, `${APPS}/daemonsets/agent`, healthOf('Healthy'));
    assert.equal(ds.status.desiredNumberScheduled, 1);
    assert.equal(ds.status.numberReady, 1);
    assert.equal(ds.status.numberAvailable, 1);
    assert.equal(ds.status.updatedNumberScheduled, 1);
    const pods = (await list(fx.cluster, `${CORE}/pods`)).filter(ownedBy(ds));
    assert.equal(pods.length, 1);
    assert.equal(pods[0].spec.nodeName, 'embedded-node');
  });

  it('a Job runs a Pod to completion: Complete, succeeded, completionTime, Healthy', async () => {
    await create(fx.cluster, `${BATCH}/jobs`, {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'migrate' },
      spec: { template: podTemplate('migrate', { restartPolicy: 'Never' }) },
    });
    const job = await waitForObject(fx.cluster, `${BATCH}/jobs/migrate`, (o) => health(o) !== 'Progressing');
    assert.equal(health(job), 'Healthy');
    assert.equal(job.status.succeeded, 1);
    assert.equal(job.status.active, undefined);
    assert.ok(job.status.completionTime);
    assert.ok(job.status.conditions.some((c: Obj) => c.type === 'Complete' && c.status === 'True'));
    const pods = (await list(fx.cluster, `${CORE}/pods`)).filter(ownedBy(job));
    assert.equal(pods.length, 1);
    assert.equal(pods[0].status.phase, 'Succeeded');
    assert.equal(pods[0].metadata.labels['job-name'], 'migrate');
    assert.equal(health(pods[0]), 'Healthy');
  });

  it('a Job annotated to fail retries up to backoffLimit, then Failed BackoffLimitExceeded, Degraded', async () => {
    await create(fx.cluster, `${BATCH}/jobs`, {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'broken', annotations: { [SIMULATE_FAIL_ANNOTATION]: 'true' } },
      spec: { backoffLimit: 1, template: podTemplate('broken', { restartPolicy: 'Never' }) },
    });
    const job = await waitForObject(fx.cluster, `${BATCH}/jobs/broken`, (o) => health(o) !== 'Progressing');
    assert.deepEqual(getResourceHealth(job), {
      status: 'Degraded',
      message: 'Job has reached the specified backoff limit',
    });
    const failed = job.status.conditions.find((c: Obj) => c.type === 'Failed');
    assert.equal(failed.reason, 'BackoffLimitExceeded');
    assert.equal(job.status.failed, 2);
    assert.equal(job.status.succeeded, undefined);
    const pods = (await list(fx.cluster, `${CORE}/pods`)).filter(ownedBy(job));
    assert.equal(pods.length, 2);
    for (const p of pods) {
      assert.equal(p.status.phase, 'Failed');
      assert.equal(health(p), 'Degraded');
    }
  });

  it('a Job managed by another controller (spec.managedBy) is left alone, as the real Job controller leaves it', async () => {
    const spec = (name: string): Obj => ({ template: podTemplate(name, { restartPolicy: 'Never' }) });
    await create(fx.cluster, `${BATCH}/jobs`, {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'external' },
      spec: { ...spec('external'), managedBy: 'example.com/other-controller' },
    });
    await create(fx.cluster, `${BATCH}/jobs`, {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'builtin' },
      spec: { ...spec('builtin'), managedBy: 'kubernetes.io/job-controller' },
    });
    // The simulation's steps run in a fixed order: once the second Job completed, the first had its turns.
    await waitForObject(fx.cluster, `${BATCH}/jobs/builtin`, healthOf('Healthy'));
    const external = (await api(fx.cluster, 'GET', `${BATCH}/jobs/external`)).body;
    assert.deepEqual(external.status ?? {}, {});
    assert.equal(health({ apiVersion: 'batch/v1', kind: 'Job', ...external }), 'Progressing');
    assert.deepEqual((await list(fx.cluster, `${CORE}/pods`)).filter(ownedBy(external)), []);
  });

  it('bare Pods: a long-running one is Running and Ready; one annotated to fail with restartPolicy Never ends Failed', async () => {
    await create(fx.cluster, `${CORE}/pods`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'solo' },
      spec: podTemplate('solo').spec,
    });
    await create(fx.cluster, `${CORE}/pods`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'doomed', annotations: { [SIMULATE_FAIL_ANNOTATION]: 'true' } },
      spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] },
    });
    const solo = await waitForObject(fx.cluster, `${CORE}/pods/solo`, healthOf('Healthy'));
    assert.equal(solo.status.phase, 'Running');
    assert.ok(solo.status.podIP);
    const doomed = await waitForObject(fx.cluster, `${CORE}/pods/doomed`, (o) => o.status.phase === 'Failed');
    assert.equal(health(doomed), 'Degraded');
    assert.equal(getResourceHealth(doomed)?.message, 'container "main" failed with exit code 1');
  });
  it('a container whose command fails (false, sh -c "...; exit 1") fails as on a node; exit 0 and other commands succeed', async () => {
    const pod = (name: string, container: Obj): Obj => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox', ...container }] },
    });
    await create(fx.cluster, `${CORE}/pods`, pod('false', { command: ['/bin/false'] }));
    await create(
      fx.cluster,
      `${CORE}/pods`,
      pod('exit1', { command: ['sh', '-c'], args: ['echo migrating; exit 1'] }),
    );
    await create(fx.cluster, `${CORE}/pods`, pod('exit0', { command: ['sh', '-c', 'echo done; exit 0'] }));
    await create(fx.cluster, `${CORE}/pods`, pod('echo', { command: ['echo', 'false'] }));
    for (const [name, phase] of [
      ['false', 'Failed'],
      ['exit1', 'Failed'],
      ['exit0', 'Succeeded'],
      ['echo', 'Succeeded'],
    ]) {
      const p = await waitForObject(fx.cluster, `${CORE}/pods/${name}`, (o) =>
        ['Failed', 'Succeeded'].includes(o.status?.phase),
      );
      assert.equal(p.status.phase, phase, name);
    }
    await create(fx.cluster, `${BATCH}/jobs`, {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'hook' },
      spec: {
        backoffLimit: 0,
        template: {
          spec: {
            restartPolicy: 'Never',
            containers: [{ name: 'main', image: 'busybox', command: ['false'] }],
          },
        },
      },
    });
    const job = await waitForObject(fx.cluster, `${BATCH}/jobs/hook`, (o) => health(o) !== 'Progressing');
    assert.equal(job.status.conditions.find((c: Obj) => c.type === 'Failed')?.reason, 'BackoffLimitExceeded');
  });
});
