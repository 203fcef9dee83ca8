/**
 * Defaults the real server fills in for built-in kinds (later diff tests rely on them appearing on live
 * objects), and allocated Service values kept across updates.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaultPullPolicy } from '../../src/embedded/defaults.js';
import { api, useEmbeddedCluster } from '../support/embedded.js';

describe('embedded defaults', () => {
  const fx = useEmbeddedCluster();

  it('fills Deployment spec, pod template and container defaults', async () => {
    const res = await api(fx.cluster, 'POST', '/apis/apps/v1/namespaces/default/deployments', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [
              { name: 'a', image: 'nginx', ports: [{ containerPort: 80 }] },
              { name: 'b', image: 'registry:5000/team/app:1.2', imagePullPolicy: 'Never' },
            ],
          },
        },
      },
    });
    assert.equal(res.status, 201);
    const spec = res.body.spec;
    assert.equal(spec.replicas, 1);
    assert.deepEqual(res.body.status, {}, 'an empty status, as Go serializes it');
    assert.deepEqual(spec.template.metadata, { labels: { app: 'web' }, creationTimestamp: null });
    const owned = JSON.stringify(res.body.metadata.managedFields);
    assert.ok(!owned.includes('creationTimestamp'), 'nulls are not owned');
    assert.deepEqual(spec.strategy, {
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' },
    });
    assert.equal(spec.revisionHistoryLimit, 10);
    assert.equal(spec.progressDeadlineSeconds, 600);
    const pod = spec.template.spec;
    assert.equal(pod.restartPolicy, 'Always');
    assert.equal(pod.dnsPolicy, 'ClusterFirst');
    assert.equal(pod.terminationGracePeriodSeconds, 30);
    assert.equal(pod.schedulerName, 'default-scheduler');
    assert.deepEqual(pod.securityContext, {});
    assert.deepEqual(pod.containers[0], {
      name: 'a',
      image: 'nginx',
      ports: [{ containerPort: 80, protocol: 'TCP' }],
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
      resources: {},
      imagePullPolicy: 'Always',
    });
    assert.equal(pod.containers[1].imagePullPolicy, 'Never', 'a value the client sent is kept');
  });

  it('derives imagePullPolicy from the tag', () => {
    assert.equal(defaultPullPolicy('nginx'), 'Always');
    assert.equal(defaultPullPolicy('nginx:latest'), 'Always');
    assert.equal(defaultPullPolicy('nginx:1.25'), 'IfNotPresent');
    assert.equal(defaultPullPolicy('localhost:5000/nginx'), 'Always');
    assert.equal(defaultPullPolicy('nginx@sha256:abc'), 'IfNotPresent');
    assert.equal(defaultPullPolicy('nginx:latest@sha256:abc'), 'Always', 'the tag is latest');
    assert.equal(defaultPullPolicy('nginx:1.25@sha256:abc'), 'IfNotPresent');
    assert.equal(
      defaultPullPolicy('Registry.example.com/team/app'),
      'Always',
      'an uppercase registry is fine',
    );
    assert.equal(defaultPullPolicy('team/App'), 'IfNotPresent', 'unparsable: no tag');
    assert.equal(defaultPullPolicy('localhost:5000/nginx:latest'), 'Always');
  });

  it('fills Service defaults, allocates a clusterIP, and keeps it when an update omits it', async () => {
    const base = '/api/v1/namespaces/default/services';
    const res = await api(fx.cluster, 'POST', base, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web' },
      spec: {
        selector: { app: 'web' },
        ports: [{ port: 80 }, { port: 443, targetPort: 8443, name: 'https' }],
      },
    });
    const spec = res.body.spec;
    assert.equal(spec.type, 'ClusterIP');
    assert.equal(spec.sessionAffinity, 'None');
    assert.match(spec.clusterIP, /^10\.96\.\d+\.\d+$/);
    assert.deepEqual(spec.clusterIPs, [spec.clusterIP]);
    assert.deepEqual(spec.ports, [
      { port: 80, protocol: 'TCP', targetPort: 80 },
      { port: 443, targetPort: 8443, name: 'https', protocol: 'TCP' },
    ]);
    assert.deepEqual(res.body.status, { loadBalancer: {} });
    const { clusterIP: _ip, clusterIPs: _ips, ...withoutIp } = spec;
    const updated = await api(fx.cluster, 'PUT', `${base}/web`, {
      ...res.body,
      spec: { ...withoutIp, selector: { app: 'v2' } },
    });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    assert.equal(updated.body.spec.clusterIP, spec.clusterIP);
    const other = await api(fx.cluster, 'POST', base, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'np' },
      spec: { type: 'NodePort', ports: [{ port: 80 }] },
    });
    assert.notEqual(other.body.spec.clusterIP, spec.clusterIP);
    assert.equal(typeof other.body.spec.ports[0].nodePort, 'number');
    assert.equal(other.body.spec.externalTrafficPolicy, 'Cluster');
  });

  it('defaults StatefulSet, DaemonSet, Job, CronJob, Secret and Namespace fields', async () => {
    const tmpl = {
      metadata: { labels: { app: 'x' } },
      spec: { containers: [{ name: 'c', image: 'busybox:1' }] },
    };
    const sts = await api(fx.cluster, 'POST', '/apis/apps/v1/namespaces/default/statefulsets', {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db' },
      spec: { serviceName: 'db', selector: { matchLabels: { app: 'x' } }, template: tmpl },
    });
    assert.equal(sts.body.spec.podManagementPolicy, 'OrderedReady');
    assert.deepEqual(sts.body.status, { replicas: 0, availableReplicas: 0 });
    assert.deepEqual(sts.body.spec.updateStrategy, {
      type: 'RollingUpdate',
      rollingUpdate: { partition: 0 },
    });
    const ds = await api(fx.cluster, 'POST', '/apis/apps/v1/namespaces/default/daemonsets', {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent' },
      spec: { selector: { matchLabels: { app: 'x' } }, template: tmpl },
    });
    assert.deepEqual(ds.body.spec.updateStrategy, {
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: 1, maxSurge: 0 },
    });
    const job = await api(fx.cluster, 'POST', '/apis/batch/v1/namespaces/default/jobs', {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'once' },
      spec: {
        template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox:1' }] } },
      },
    });
    assert.equal(job.body.spec.backoffLimit, 6);
    assert.equal(job.body.spec.completionMode, 'NonIndexed');
    assert.equal(job.body.spec.template.spec.restartPolicy, 'Never');
    const cron = await api(fx.cluster, 'POST', '/apis/batch/v1/namespaces/default/cronjobs', {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'tick' },
      spec: {
        schedule: '* * * * *',
        jobTemplate: {
          spec: {
            template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox' }] } },
          },
        },
      },
    });
    assert.equal(cron.body.spec.concurrencyPolicy, 'Allow');
    assert.equal(cron.body.spec.successfulJobsHistoryLimit, 3);
    assert.equal(cron.body.spec.jobTemplate.spec.template.spec.containers[0].imagePullPolicy, 'Always');
    const ns = await api(fx.cluster, 'POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'fresh' },
    });
    assert.deepEqual(ns.body.metadata.labels, { 'kubernetes.io/metadata.name': 'fresh' });
    assert.deepEqual(ns.body.spec, { finalizers: ['kubernetes'] });
    assert.deepEqual(ns.body.status, { phase: 'Active' });
  });

  it('defaults only fields its served schema has: a Job passes fieldValidation=Strict', async () => {
    // Job spec.podReplacementPolicy (1.28) is not in the served 1.22 schema: defaulting it made every Job
    // fail Strict validation with "unknown field" (and a real 1.22 server has no such default).
    const body = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'strict' },
      spec: {
        template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox:1' }] } },
      },
    };
    const base = '/apis/batch/v1/namespaces/default/jobs';
    const res = await api(fx.cluster, 'POST', `${base}?fieldValidation=Strict`, body);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.spec.podReplacementPolicy, undefined);
    assert.equal(res.body.spec.backoffLimit, 6);
    const put = await api(fx.cluster, 'PUT', `${base}/strict?fieldValidation=Strict`, res.body);
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const applied = await api(
      fx.cluster,
      'PATCH',
      `${base}/strict-apply?fieldManager=t&fieldValidation=Strict`,
      { ...body, metadata: { name: 'strict-apply' } },
      'application/apply-patch+yaml',
    );
    assert.equal(applied.status, 201, JSON.stringify(applied.body));
    assert.equal(applied.body.spec.podReplacementPolicy, undefined);
  });
});
