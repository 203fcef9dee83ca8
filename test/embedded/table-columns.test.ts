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

/** `kubectl get` output as rows of {HEADER: cell}, cut at the header's column starts (cells may be empty). */
function parseTable(stdout: string): Array<Record<string, string>> {
  const [header, ...lines] = stdout.replace(/\n$/, '').split('\n');
  const names = header!.split(/ {3,}/).filter(Boolean);
  let from = 0;
  const starts = names.map((n) => (from = header!.indexOf(n, from)));
  return lines.map((line) =>
    Object.fromEntries(
      names.map((n, i) => [
        n,
        line.slice(starts[i], i + 1 < names.length ? starts[i + 1] : undefined).trim(),
      ]),
    ),
  );
}

const AGE = /^\d+s$/;

const MANIFESTS = `
apiVersion: v1
kind: Pod
metadata: {name: p1, namespace: default}
spec:
  nodeName: n1
  readinessGates: [{conditionType: example.com/gate}]
  containers: [{name: a, image: nginx}, {name: b, image: busybox}]
---
apiVersion: v1
kind: Service
metadata: {name: s1, namespace: default}
spec:
  selector: {app: web, tier: fe}
  ports: [{port: 80}, {port: 443, protocol: TCP}]
---
apiVersion: v1
kind: Service
metadata: {name: ext, namespace: default}
spec: {type: ExternalName, externalName: example.com}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs1, namespace: default}
spec:
  replicas: 3
  selector:
    matchLabels: {app: rs}
    matchExpressions: [{key: tier, operator: In, values: [fe, be]}]
  template:
    metadata: {labels: {app: rs, tier: fe}}
    spec: {containers: [{name: web, image: nginx}]}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: sts1, namespace: default}
spec:
  replicas: 2
  serviceName: s1
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: postgres}]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ds1, namespace: default}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      nodeSelector: {kubernetes.io/os: linux}
      containers: [{name: agent, image: fluentd}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: j1, namespace: default}
spec:
  parallelism: 3
  completions: 5
  template:
    spec:
      restartPolicy: Never
      containers: [{name: work, image: busybox}]
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: cj1, namespace: default}
spec:
  schedule: "*/5 * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: tick, image: busybox}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: ing1, namespace: default}
spec:
  ingressClassName: nginx
  tls: [{hosts: [a.example.com]}]
  rules:
  - host: a.example.com
  - host: b.example.com
  - host: c.example.com
  - host: d.example.com
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: pvc1, namespace: default}
spec:
  storageClassName: standard
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: sa1, namespace: default}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: r1, namespace: default}
rules: [{apiGroups: [""], resources: [pods], verbs: [get]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: rb1, namespace: default}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: r1}
subjects:
- {kind: User, name: alice, apiGroup: rbac.authorization.k8s.io}
- {kind: User, name: bob, apiGroup: rbac.authorization.k8s.io}
- {kind: Group, name: devs, apiGroup: rbac.authorization.k8s.io}
- {kind: ServiceAccount, name: sa1, namespace: default}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: crb1}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects: [{kind: Group, name: viewers, apiGroup: rbac.authorization.k8s.io}]
---
apiVersion: v1
kind: Event
metadata: {name: p1.abc, namespace: default}
involvedObject: {kind: Pod, name: p1, namespace: default, fieldPath: "spec.containers{a}"}
reason: Pulled
message: "  Pulled image nginx  "
type: Normal
count: 4
source: {component: kubelet, host: n1}
firstTimestamp: "2020-01-01T00:00:00Z"
lastTimestamp: "2020-01-01T00:00:00Z"
---
apiVersion: v1
kind: Node
metadata:
  name: n1
  labels: {node-role.kubernetes.io/control-plane: "", node-role.kubernetes.io/worker: "", kubernetes.io/role: infra}
spec: {unschedulable: true}
`;

describe(
  'embedded server: kubectl get prints each kind as against kube-apiserver',
  {
    skip: hasKubectl ? false : 'no kubectl',
  },
  () => {
    const fx = useEmbeddedCluster();
    const get = async (args: string[]): Promise<Array<Record<string, string>>> => {
      const r = await kubectl(fx, ['get', ...args]);
      assert.equal(r.code, 0, r.stderr);
      return parseTable(r.stdout);
    };
    const headers = async (args: string[]): Promise<string[]> => {
      const r = await kubectl(fx, ['get', ...args]);
      assert.equal(r.code, 0, r.stderr);
      return r.stdout.split('\n')[0]!.split(/ {3,}/).filter(Boolean);
    };

    it('creates one object of each kind', async () => {
      const r = await kubectl(fx, ['apply', '-f', '-'], MANIFESTS);
      assert.equal(r.code, 0, r.stderr);
    });

    it('Pod: READY, STATUS, RESTARTS from the container statuses; wide IP, NODE, NOMINATED NODE, READINESS GATES', async () => {
      assert.deepEqual(await headers(['pods']), ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
      let [row] = await get(['pods', 'p1', '-o', 'wide']);
      assert.deepEqual(
        { ...row, AGE: undefined },
        {
          NAME: 'p1',
          READY: '0/2',
          STATUS: 'Pending',
          RESTARTS: '0',
          AGE: undefined,
          IP: '<none>',
          NODE: 'n1',
          'NOMINATED NODE': '<none>',
          'READINESS GATES': '0/1',
        },
      );
      const finishedAt = new Date(Date.now() - 5 * 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
      const status = {
        status: {
          phase: 'Running',
          podIPs: [{ ip: '10.0.0.7' }],
          conditions: [{ type: 'example.com/gate', status: 'True' }],
          containerStatuses: [
            {
              name: 'a',
              image: 'nginx',
              imageID: '',
              ready: true,
              restartCount: 2,
              state: { running: {} },
              lastState: { terminated: { exitCode: 1, finishedAt } },
            },
            {
              name: 'b',
              image: 'busybox',
              imageID: '',
              ready: false,
              restartCount: 0,
              state: { waiting: { reason: 'CrashLoopBackOff' } },
            },
          ],
        },
      };
      const patched = await kubectl(fx, [
        'patch',
        'pod',
        'p1',
        '--subresource=status',
        '--type=merge',
        '-p',
        JSON.stringify(status),
      ]);
      assert.equal(patched.code, 0, patched.stderr);
      [row] = await get(['pods', 'p1', '-o', 'wide']);
      assert.equal(row!['READY'], '1/2');
      assert.equal(row!['STATUS'], 'CrashLoopBackOff');
      assert.match(row!['RESTARTS']!, /^2 \(5m\d*s? ago\)$/);
      assert.equal(row!['IP'], '10.0.0.7');
      assert.equal(row!['READINESS GATES'], '1/1');
    });

    it('Service: TYPE, CLUSTER-IP, EXTERNAL-IP, PORT(S); wide SELECTOR', async () => {
      const rows = await get(['svc', 's1', 'ext', '-o', 'wide']);
      assert.deepEqual(Object.keys(rows[0]!), [
        'NAME',
        'TYPE',
        'CLUSTER-IP',
        'EXTERNAL-IP',
        'PORT(S)',
        'AGE',
        'SELECTOR',
      ]);
      assert.match(rows[0]!['CLUSTER-IP']!, /^\d+\.\d+\.\d+\.\d+$/);
      assert.deepEqual(
        [rows[0]!['TYPE'], rows[0]!['EXTERNAL-IP'], rows[0]!['PORT(S)'], rows[0]!['SELECTOR']],
        ['ClusterIP', '<none>', '80/TCP,443/TCP', 'app=web,tier=fe'],
      );
      assert.deepEqual(
        [
          rows[1]!['TYPE'],
          rows[1]!['CLUSTER-IP'],
          rows[1]!['EXTERNAL-IP'],
          rows[1]!['PORT(S)'],
          rows[1]!['SELECTOR'],
        ],
        ['ExternalName', '<none>', 'example.com', '<none>', '<none>'],
      );
    });

    it('ReplicaSet, StatefulSet, DaemonSet: counts, containers, images, selectors', async () => {
      const [rs] = await get(['rs', 'rs1', '-o', 'wide']);
      assert.deepEqual(
        { ...rs, AGE: undefined },
        {
          NAME: 'rs1',
          DESIRED: '3',
          CURRENT: '0',
          READY: '0',
          AGE: undefined,
          CONTAINERS: 'web',
          IMAGES: 'nginx',
          SELECTOR: 'app=rs,tier in (be,fe)',
        },
      );
      const [sts] = await get(['sts', 'sts1', '-o', 'wide']);
      assert.deepEqual(
        { ...sts, AGE: undefined },
        { NAME: 'sts1', READY: '0/2', AGE: undefined, CONTAINERS: 'db', IMAGES: 'postgres' },
      );
      assert.deepEqual(await headers(['ds']), [
        'NAME',
        'DESIRED',
        'CURRENT',
        'READY',
        'UP-TO-DATE',
        'AVAILABLE',
        'NODE SELECTOR',
        'AGE',
      ]);
      const [ds] = await get(['ds', 'ds1', '-o', 'wide']);
      assert.equal(ds!['NODE SELECTOR'], 'kubernetes.io/os=linux');
      assert.equal(ds!['SELECTOR'], 'app=agent');
      assert.match(ds!['AGE']!, AGE);
    });

    it('Job and CronJob: STATUS, COMPLETIONS, DURATION; SCHEDULE, TIMEZONE, SUSPEND, ACTIVE, LAST SCHEDULE', async () => {
      const [job] = await get(['jobs', 'j1']);
      assert.deepEqual(
        { ...job, AGE: undefined },
        {
          NAME: 'j1',
          STATUS: 'Running',
          COMPLETIONS: '0/5',
          DURATION: '',
          AGE: undefined,
        },
      );
      const [cj] = await get(['cronjobs', 'cj1', '-o', 'wide']);
      assert.deepEqual(
        { ...cj, AGE: undefined },
        {
          NAME: 'cj1',
          SCHEDULE: '*/5 * * * *',
          TIMEZONE: '<none>',
          SUSPEND: 'False',
          ACTIVE: '0',
          'LAST SCHEDULE': '<none>',
          AGE: undefined,
          CONTAINERS: 'tick',
          IMAGES: 'busybox',
          SELECTOR: '<none>',
        },
      );
    });

    it('Ingress, PersistentVolumeClaim, ServiceAccount', async () => {
      const [ing] = await get(['ingress', 'ing1']);
      assert.deepEqual(
        { ...ing, AGE: undefined },
        {
          NAME: 'ing1',
          CLASS: 'nginx',
          HOSTS: 'a.example.com,b.example.com,c.example.com + 1 more...',
          ADDRESS: '',
          PORTS: '80, 443',
          AGE: undefined,
        },
      );
      const [pvc] = await get(['pvc', 'pvc1', '-o', 'wide']);
      assert.deepEqual(
        { ...pvc, AGE: undefined },
        {
          NAME: 'pvc1',
          STATUS: 'Pending',
          VOLUME: '',
          CAPACITY: '',
          'ACCESS MODES': '',
          STORAGECLASS: 'standard',
          VOLUMEATTRIBUTESCLASS: '<unset>',
          AGE: undefined,
          VOLUMEMODE: 'Filesystem',
        },
      );
      assert.deepEqual(await headers(['sa', 'sa1']), ['NAME', 'SECRETS', 'AGE']);
    });

    it('RBAC: roles print CREATED AT, bindings ROLE and, wide, USERS, GROUPS, SERVICEACCOUNTS', async () => {
      const [role] = await get(['role', 'r1']);
      assert.deepEqual(Object.keys(role!), ['NAME', 'CREATED AT']);
      assert.match(role!['CREATED AT']!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      const [rb] = await get(['rolebinding', 'rb1', '-o', 'wide']);
      assert.deepEqual(
        { ...rb, AGE: undefined },
        {
          NAME: 'rb1',
          ROLE: 'Role/r1',
          AGE: undefined,
          USERS: 'alice, bob',
          GROUPS: 'devs',
          SERVICEACCOUNTS: 'default/sa1',
        },
      );
      const [crb] = await get(['clusterrolebinding', 'crb1']);
      assert.deepEqual(Object.keys(crb!), ['NAME', 'ROLE', 'AGE']);
      assert.equal(crb!['ROLE'], 'ClusterRole/view');
    });

    it('Event: LAST SEEN, TYPE, REASON, OBJECT, MESSAGE; wide SUBOBJECT, SOURCE, FIRST SEEN, COUNT, NAME', async () => {
      assert.deepEqual(await headers(['events']), ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
      const [ev] = await get(['events', '-o', 'wide']);
      assert.match(ev!['LAST SEEN']!, /^\d+y\d*d?$/);
      assert.deepEqual(
        { ...ev, 'LAST SEEN': undefined, 'FIRST SEEN': undefined },
        {
          'LAST SEEN': undefined,
          TYPE: 'Normal',
          REASON: 'Pulled',
          OBJECT: 'pod/p1',
          SUBOBJECT: 'spec.containers{a}',
          SOURCE: 'kubelet, n1',
          MESSAGE: 'Pulled image nginx',
          'FIRST SEEN': undefined,
          COUNT: '4',
          NAME: 'p1.abc',
        },
      );
    });

    it('Node: STATUS, ROLES, VERSION; CRDs: CREATED AT', async () => {
      const [node] = await get(['nodes', 'n1', '-o', 'wide']);
      assert.deepEqual(
        { ...node, AGE: undefined },
        {
          NAME: 'n1',
          STATUS: 'Unknown,SchedulingDisabled',
          ROLES: 'control-plane,infra,worker',
          AGE: undefined,
          VERSION: '',
          'INTERNAL-IP': '<none>',
          'EXTERNAL-IP': '<none>',
          'OS-IMAGE': '<unknown>',
          'KERNEL-VERSION': '<unknown>',
          'CONTAINER-RUNTIME': '<unknown>',
        },
      );
    });

    it("custom resources: NAME and AGE by default, else exactly the version's additionalPrinterColumns", async () => {
      const crd = (name: string, columns: string) => `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: ${name}s.example.com}
spec:
  group: example.com
  names: {kind: ${name[0]!.toUpperCase()}${name.slice(1)}, plural: ${name}s}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
${columns}`;
      const gadgetColumns = `    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    - {name: Color, type: string, jsonPath: .spec.color}
    - {name: Since, type: date, jsonPath: .status.since}
    - {name: Ports, type: string, jsonPath: ".spec.ports[1].name", priority: 1}`;
      for (const doc of [crd('plain', ''), crd('gadget', gadgetColumns)]) {
        const r = await kubectl(fx, ['apply', '-f', '-'], doc);
        assert.equal(r.code, 0, r.stderr);
      }
      assert.deepEqual(Object.keys((await get(['crd', 'gadgets.example.com']))[0]!), ['NAME', 'CREATED AT']);
      const objects = `
apiVersion: example.com/v1
kind: Plain
metadata: {name: x, namespace: default}
---
apiVersion: example.com/v1
kind: Gadget
metadata: {name: g, namespace: default}
spec: {size: 3, ports: [{name: a}, {name: b}]}
`;
      const r = await kubectl(fx, ['apply', '-f', '-'], objects);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(Object.keys((await get(['plains']))[0]!), ['NAME', 'AGE']);
      // Null cells (no value at the path) print empty.
      assert.deepEqual(await get(['gadgets']), [{ NAME: 'g', SIZE: '3', COLOR: '', SINCE: '' }]);
      assert.deepEqual((await get(['gadgets', '-o', 'wide']))[0]!['PORTS'], 'b');
    });
  },
);
