/**
 * `as=Table` columns of built-in kinds as kube-apiserver's printers give them
 * (kubernetes pkg/printers/internalversion/printers.go), seen through the real `kubectl get` (issue 9).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { api, hasKubectl, kubectl, useEmbeddedCluster } from '../support/embedded.js';

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';

describe('embedded server: Table columns per kind', () => {
  const fx = useEmbeddedCluster();

  it('ConfigMap, Secret, Namespace and Deployment get their printer columns; wide ones have priority 1', async () => {
    await api(fx.cluster, 'POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'c1' },
      data: { a: 'b', c: 'd' },
    });
    const cm = await api(fx.cluster, 'GET', '/api/v1/namespaces/default/configmaps', undefined, undefined, {
      Accept: TABLE,
    });
    assert.deepEqual(
      cm.body.columnDefinitions.map((c: { name: string }) => c.name),
      ['Name', 'Data', 'Age'],
    );
    assert.deepEqual(cm.body.rows[0].cells.slice(0, 2), ['c1', 2]);
    const deploy = await api(fx.cluster, 'GET', '/apis/apps/v1/deployments', undefined, undefined, {
      Accept: TABLE,
    });
    assert.deepEqual(
      deploy.body.columnDefinitions.map((c: { name: string; priority: number }) => `${c.name}:${c.priority}`),
      ['Name:0', 'Ready:0', 'Up-to-date:0', 'Available:0', 'Age:0', 'Containers:1', 'Images:1', 'Selector:1'],
    );
  });

  it('kubectl get prints them', { skip: hasKubectl ? false : 'no kubectl' }, async () => {
    await kubectl(fx, ['create', 'secret', 'generic', 's1', '--from-literal=a=b']);
    const deployment = [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata: {name: web, namespace: default}',
      'spec:',
      '  replicas: 2',
      '  selector: {matchLabels: {app: web}}',
      '  template:',
      '    metadata: {labels: {app: web}}',
      '    spec: {containers: [{name: web, image: nginx}]}',
    ].join('\n');
    assert.equal((await kubectl(fx, ['apply', '-f', '-'], deployment)).code, 0);
    const header = async (args: string[]) =>
      (await kubectl(fx, ['get', ...args])).stdout.split('\n')[0]!.split(/\s+/);
    assert.deepEqual(await header(['secret', 's1']), ['NAME', 'TYPE', 'DATA', 'AGE']);
    assert.deepEqual(await header(['ns', 'default']), ['NAME', 'STATUS', 'AGE']);
    assert.deepEqual(await header(['deploy']), ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
    assert.deepEqual(await header(['deploy', '-o', 'wide']), [
      'NAME',
      'READY',
      'UP-TO-DATE',
      'AVAILABLE',
      'AGE',
      'CONTAINERS',
      'IMAGES',
      'SELECTOR',
    ]);
    const row = (await kubectl(fx, ['get', 'deploy', 'web', '--no-headers', '-o', 'wide'])).stdout
      .trim()
      .split(/\s+/);
    assert.deepEqual([row[0], row[1], row[5], row[6], row[7]], ['web', '0/2', 'web', 'nginx', 'app=web']);
  });
});
