/**
 * The conformance runner's own logic, without the rig: the case loader (every committed case loads, ids
 * are unique, placeholders fill), the normaliser and field comparison, the views of each phase, the
 * audit-log reading, the shards parsers and the table totals. Nothing in src/ imports conformance/.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fill, loadCases, parseCase, sideApp } from '../../conformance/compare/case.js';
import {
  appListLines,
  argoSettled,
  operationEnded,
  repoClusterScoped,
  textLines,
} from '../../conformance/compare/batch.js';
import { fastImportStream } from '../../conformance/compare/git.js';
import { stepOperation } from '../../conformance/compare/operations-steps.js';
import { operationsView, stepWrites } from '../../conformance/compare/operations-view.js';
import {
  compareFields,
  flatten,
  keyed,
  maskGeneratedNames,
  normaliseObject,
  replaceTokens,
  totals,
} from '../../conformance/compare/normalise.js';
import { parseArgoShards, parseOurShards } from '../../conformance/compare/shards.js';
import { summary } from '../../conformance/compare/table.js';
import {
  auditWrites,
  controllerView,
  healthAssessed,
  omitEmpty,
  parseAppGetResources,
  refreshViewOfDiff,
  refreshViewOfStatus,
  syncViewOfOperation,
  syncViewOfReport,
  writeList,
} from '../../conformance/compare/views.js';

const root = join(fileURLToPath(import.meta.url), '..', '..', '..');
const casesDir = join(root, 'conformance', 'cases');

const minimal = `id: c999
name: x
family: f
intent: i
provenance: p
app:
  spec: {source: {repoURL: '\${REPO}', path: app}, destination: {namespace: '\${NS}'}}
`;

describe('conformance case loader', () => {
  it('loads every committed case: at least 150, unique ids, each with intent and provenance', () => {
    const cases = loadCases(casesDir);
    assert.ok(cases.length >= 150, `${cases.length} cases`);
    assert.equal(new Set(cases.map((c) => c.id)).size, cases.length);
    for (const c of cases) {
      assert.ok(c.intent && c.provenance, c.id);
      assert.ok(c.app || c.shards || c.appset, c.id);
      if (c.operations) assert.deepEqual(c.phases, ['operations'], c.id);
    }
    const families = new Set(cases.map((c) => c.family));
    for (const f of [
      'directory',
      'kustomize',
      'helm',
      'jsonnet',
      'multi-source',
      'hooks-waves',
      'prune',
      'health',
      'projects',
      'shards',
      'appsets',
      'operations',
    ])
      assert.ok(families.has(f), f);
  });

  it('each case file starts with its intent and provenance as comments', () => {
    const walk = (d: string): string[] =>
      readdirSync(d).flatMap((e) =>
        statSync(join(d, e)).isDirectory() ? walk(join(d, e)) : e.endsWith('.yaml') ? [join(d, e)] : [],
      );
    for (const f of walk(casesDir)) {
      const head = readFileSync(f, 'utf8').split('\n');
      assert.match(head[0]!, /^# c\d{3} /, f);
      assert.match(head[1]!, /^# provenance: /, f);
    }
  });

  it('refuses a case with an unknown field, a bad id, an unknown phase or binary, naming the file', () => {
    assert.throws(
      () => parseCase(minimal + 'extra: 1\n', 'a.yaml'),
      /^Error: a\.yaml: failed to load case: unknown field extra$/,
    );
    assert.throws(
      () => parseCase(minimal.replace('c999', 'x1'), 'b.yaml'),
      /b\.yaml: failed to load case: id x1/,
    );
    assert.throws(() => parseCase(minimal + 'phases: [deploy]\n', 'c.yaml'), /unknown phase deploy/);
    assert.throws(() => parseCase(minimal + 'needs: [docker]\n', 'd.yaml'), /unknown binary docker/);
    assert.throws(() => parseCase('name: [', 'e.yaml'), /e\.yaml: failed to load case: /);
    assert.throws(
      () => parseCase(minimal.replace(/app:[\s\S]*/, ''), 'f.yaml'),
      /a case has an app, an appset or shards/,
    );
  });

  it('an operations case: ordered steps, phase operations; bad steps refused naming the step', () => {
    const steps = `operations:\n  - {op: sync, until: hookRunning}\n  - {op: terminate}\n  - {op: push, files: {a: b}}\n  - {op: rollback, id: 0}\n  - {op: delete}\n`;
    const c = parseCase(minimal + steps, 'o.yaml');
    assert.deepEqual(c.phases, ['operations']);
    assert.deepEqual(
      c.operations?.map((s) => s.op),
      ['sync', 'terminate', 'push', 'rollback', 'delete'],
    );
    for (const [bad, why] of [
      ['operations:\n  - {op: pause}\n', /operations\[0\]: unknown op pause/],
      [
        'operations:\n  - {op: terminate, until: retrying}\n',
        /operations\[0\]: until retrying needs op sync/,
      ],
      ['operations:\n  - {op: rollback}\n', /operations\[0\]: rollback needs an id/],
      ['operations:\n  - {op: push}\n', /operations\[0\]: push needs files/],
      ['operations:\n  - {op: sync, wait: 1}\n', /operations\[0\]: unknown field wait/],
      ['operations: []\n', /operations must be a list of steps/],
    ] as const)
      assert.throws(() => parseCase(minimal + bad, 'o.yaml'), why);
    assert.throws(
      () => parseCase(minimal.replace(/app:[\s\S]*/, '') + 'operations:\n  - {op: sync}\n', 'p.yaml'),
      /operations need an app/,
    );
  });

  it('defaults: every phase, the destination namespace created, no sync options', () => {
    const c = parseCase(minimal, 'm.yaml');
    assert.deepEqual(c.phases, ['refresh', 'sync', 'controller']);
    assert.equal(c.createNamespace, true);
    assert.deepEqual(c.sync, {});
  });

  it('fills the placeholders per side and names the app after the side', () => {
    const c = parseCase(minimal, 'm.yaml');
    const values = { ns: 'c999-a', argocdNs: 'argocd', repoUrl: (n: string) => `http://git/${n}.git` };
    const app = sideApp(c, values);
    assert.equal(app.metadata.name, 'c999-a');
    assert.equal(app.metadata.namespace, 'argocd');
    assert.equal(app.spec.source.repoURL, 'http://git/main.git');
    assert.equal(app.spec.destination.namespace, 'c999-a');
    assert.deepEqual(fill({ a: '${REPO:values} ${APP} ${ARGOCD_NS}' }, values), {
      a: 'http://git/values.git c999-a argocd',
    });
  });
});

describe('conformance normaliser and comparison', () => {
  it('replaces tokens longest first, in keys and values', () => {
    const t = new Map([
      ['c001-a', 'c001-X'],
      ['abc123', '<rev:main>'],
    ]);
    assert.deepEqual(replaceTokens({ 'c001-a/x': 'ns c001-a at abc123' }, t), {
      'c001-X/x': 'ns c001-X at <rev:main>',
    });
  });

  it("masks the operation's start in a generated hook name, once its revision prefix is a token", () => {
    const t = new Map([
      ['c062-a', 'c062-X'],
      ['7477d28aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', '<rev:main>'],
      ['7477d28', '<rev7:main>'],
    ]);
    assert.deepEqual(replaceTokens(['create batch/jobs c062-a/gen-7477d28-postsync-1795870787'], t), [
      'create batch/jobs c062-X/gen-<rev7:main>-postsync-<unix>',
    ]);
    assert.equal(
      maskGeneratedNames('web-postsync-1795870787'),
      'web-postsync-1795870787',
      'no revision: kept',
    );
  });

  it('drops what Kubernetes assigns and masks times, keeping managedFields without their time', () => {
    const o = normaliseObject({
      metadata: {
        name: 'x',
        uid: 'u',
        resourceVersion: '5',
        creationTimestamp: '2026-01-01T00:00:00Z',
        managedFields: [{ manager: 'm', time: '2026-01-01T00:00:00Z', operation: 'Apply' }],
      },
      status: { startTime: '2026-11-28T06:00:00.123Z', phase: 'Running' },
    });
    assert.deepEqual(o, {
      metadata: { name: 'x', managedFields: [{ manager: 'm', operation: 'Apply' }] },
      status: { startTime: '<time>', phase: 'Running' },
    });
  });

  it('flattens to paths, bracketing keys with dots or slashes, empty maps and lists as leaves', () => {
    const f = flatten({ a: { b: 1, 'x.y/z': 'v' }, l: [true, {}], e: [] });
    assert.deepEqual(
      [...f],
      [
        ['a.b', '1'],
        ['a[x.y/z]', '"v"'],
        ['l[0]', 'true'],
        ['l[1]', '{}'],
        ['e', '[]'],
      ],
    );
  });

  it('compares field by field over the union of both sides', () => {
    const rows = compareFields(
      'c001',
      'refresh',
      'status',
      { sync: 'Synced', health: 'Healthy' },
      { sync: 'OutOfSync', extra: 1 },
    );
    assert.deepEqual(
      rows.map((r) => [r.field, r.argocd, r.ours, r.same]),
      [
        ['status.extra', undefined, '1', false],
        ['status.health', '"Healthy"', undefined, false],
        ['status.sync', '"Synced"', '"OutOfSync"', false],
      ],
    );
    assert.deepEqual(totals([...rows, ...compareFields('c', 'p', '', { a: 1 }, { a: 1 })]), {
      fields: 4,
      identical: 1,
      different: 3,
    });
  });

  it('keys lists, numbering repeated keys', () => {
    assert.deepEqual(Object.keys(keyed([{ k: 'a' }, { k: 'b' }, { k: 'a' }], (o) => o.k)!), [
      'a',
      'b',
      'a#2',
    ]);
  });
});

describe('conformance views', () => {
  it("Argo CD's status and our diff entry reduce to one shape (omitempty on both)", () => {
    const argo = refreshViewOfStatus({
      sync: { status: 'OutOfSync', revision: 'r' },
      health: { status: 'Healthy' },
      conditions: [{ type: 'SharedResourceWarning', message: 'm', lastTransitionTime: 't' }],
      resources: [
        {
          version: 'v1',
          kind: 'ConfigMap',
          namespace: 'n',
          name: 'c',
          status: 'OutOfSync',
          requiresPruning: true,
        },
      ],
    });
    const ours = refreshViewOfDiff(
      {
        sync: 'OutOfSync',
        revision: 'r',
        health: 'Healthy',
        healthMessage: '',
        conditions: [{ type: 'SharedResourceWarning', message: 'm' }],
        resources: [
          {
            group: '',
            version: 'v1',
            kind: 'ConfigMap',
            namespace: 'n',
            name: 'c',
            status: 'OutOfSync',
            requiresPruning: true,
            hook: false,
            health: 'Healthy',
            changes: [],
          },
        ],
      },
      false,
    );
    assert.deepEqual(ours, argo);
  });

  it('our diff entry keeps resource health only when Argo CD wrote it', () => {
    const app = { resources: [{ kind: 'Pod', name: 'p', health: 'Progressing', healthMessage: 'm' }] };
    assert.equal(refreshViewOfDiff(app, false).resources['/Pod//p'].health, undefined);
    assert.deepEqual(refreshViewOfDiff(app, true).resources['/Pod//p'].health, {
      status: 'Progressing',
      message: 'm',
    });
  });

  it('sync views: operation state and our report keyed by resource and phase, syncWave left out', () => {
    const r = {
      group: 'batch',
      version: 'v1',
      kind: 'Job',
      namespace: 'n',
      name: 'pre',
      status: 'Synced',
      hookType: 'PreSync',
      hookPhase: 'Succeeded',
      syncPhase: 'PreSync',
    };
    const argo = syncViewOfOperation({ phase: 'Succeeded', message: 'ok', syncResult: { resources: [r] } });
    const ours = syncViewOfReport({ phase: 'Succeeded', message: 'ok', resources: [{ ...r, syncWave: 0 }] });
    assert.deepEqual(ours, argo);
    assert.ok(argo.resources['batch/Job/n/pre@PreSync']);
  });

  it('controller view drops reconciledAt and masks times', () => {
    const v = controllerView({
      reconciledAt: 'x',
      health: { status: 'Healthy', lastTransitionTime: '2026-01-01T00:00:00Z' },
      resources: [{ kind: 'A', name: 'a' }],
    });
    assert.deepEqual(v, {
      health: { status: 'Healthy', lastTransitionTime: '<time>' },
      resources: { '/A//a': { kind: 'A', name: 'a' } },
    });
  });

  it('omitEmpty keeps zero and true, drops false, empty strings, lists and maps', () => {
    assert.deepEqual(omitEmpty({ a: 0, b: true, c: false, d: '', e: [], f: {}, g: { h: null } }), {
      a: 0,
      b: true,
    });
  });

  it('reads writes of one side from audit events: its user, its names, dry runs, responses', () => {
    const ev = (o: object) =>
      JSON.stringify({ stage: 'ResponseComplete', user: { username: 'argocd' }, ...o });
    const lines = [
      ev({
        verb: 'create',
        requestURI: '/api/v1/namespaces/c001-a/configmaps?dryRun=All',
        objectRef: { resource: 'configmaps', namespace: 'c001-a', name: 'b' },
        responseStatus: { code: 201 },
      }),
      ev({
        verb: 'create',
        requestURI: '/api/v1/namespaces/c001-a/configmaps',
        objectRef: { resource: 'configmaps', namespace: 'c001-a', name: 'b' },
        responseStatus: { code: 201 },
      }),
      ev({
        verb: 'create',
        requestURI: '/api/v1/namespaces/c001-a/configmaps',
        objectRef: { resource: 'configmaps', namespace: 'c001-a', name: 'a' },
        responseStatus: { code: 201 },
      }),
      ev({
        verb: 'patch',
        requestURI: '/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/c001-a',
        objectRef: { resource: 'applications', namespace: 'argocd', name: 'c001-a' },
      }),
      ev({
        verb: 'delete',
        requestURI: '/api/v1/namespaces/c001-o/configmaps/a',
        objectRef: { resource: 'configmaps', namespace: 'c001-o', name: 'a' },
      }),
      JSON.stringify({
        stage: 'ResponseComplete',
        user: { username: 'other' },
        verb: 'create',
        objectRef: { resource: 'pods', namespace: 'c001-a', name: 'p' },
      }),
      ev({
        verb: 'create',
        requestURI: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
        objectRef: { apiGroup: 'rbac.authorization.k8s.io', resource: 'clusterroles', name: 'c001-a-reader' },
        responseStatus: { code: 422 },
      }),
    ];
    assert.deepEqual(writeList(auditWrites(lines, 'argocd', 'c001-a')), [
      'create configmaps c001-a/b (dry run)',
      'create configmaps c001-a/a',
      'create configmaps c001-a/b',
      'create rbac.authorization.k8s.io/clusterroles/(422) c001-a-reader',
    ]);
  });
});

describe('conformance layout', () => {
  it('nothing in src/ imports conformance/', () => {
    const walk = (d: string): string[] =>
      readdirSync(d).flatMap((e) =>
        statSync(join(d, e)).isDirectory() ? walk(join(d, e)) : e.endsWith('.ts') ? [join(d, e)] : [],
      );
    const offenders = walk(join(root, 'src')).filter((f) =>
      /from ['"][./]*conformance\//.test(readFileSync(f, 'utf8')),
    );
    assert.deepEqual(offenders, []);
  });
});

describe('conformance helpers', () => {
  it('writes a fast-import stream with byte lengths', () => {
    const s = fastImportStream('r', { 'a/é.txt': 'é\n' });
    assert.match(s, /^blob\nmark :1\ndata 3\né\n\n/);
    assert.match(s, /M 100644 :1 a\/é\.txt\ndone\n$/);
    assert.match(fastImportStream('r', {}), /M 100644 :1 \.keep/);
  });

  it('masks times and durations in argocd app get text and reads app list rows by name', () => {
    const t = textLines(
      'Name:  argocd/c001-a\nStarted:  2026-11-28 06:00:00 +0000 UTC\nDuration: 3s\nDuration: 2m6s\n\n',
      new Map([['c001-a', 'c001-X']]),
    );
    assert.deepEqual(t, ['Name:  argocd/c001-X', 'Started:  <time>', 'Duration: <dur>', 'Duration: <dur>']);
    const l = appListLines(
      'NAME  CLUSTER  STATUS\nargocd/c001-a  https://kubernetes.default.svc   Synced\nargocd/zzz x\n',
      new Set(['c001-a']),
    );
    assert.deepEqual([...l], [['c001-a', 'argocd/c001-a https://kubernetes.default.svc Synced']]);
  });

  it('knows when Argo CD is done with an app: refreshed after its operation, or refused with a condition', () => {
    const t = '2026-11-28T06:00:00Z';
    const later = '2026-11-28T06:00:05Z';
    assert.equal(argoSettled({ status: { sync: { status: 'Synced' }, reconciledAt: t } }), true);
    assert.equal(
      argoSettled({ status: { sync: { status: 'Unknown' }, conditions: [{ type: 'InvalidSpecError' }] } }),
      true,
    );
    assert.equal(argoSettled({ status: { sync: { status: 'Synced' } } }), false);
    assert.equal(argoSettled({ status: {} }), false);
    assert.equal(
      argoSettled({ operation: {}, status: { sync: { status: 'Synced' }, reconciledAt: t } }),
      false,
    );
    const op = (phase: string) => ({ phase, finishedAt: later });
    assert.equal(
      argoSettled({
        status: { sync: { status: 'Synced' }, reconciledAt: t, operationState: op('Succeeded') },
      }),
      false,
    );
    assert.equal(
      argoSettled({
        status: { sync: { status: 'Synced' }, reconciledAt: later, operationState: op('Succeeded') },
      }),
      true,
    );
    assert.equal(
      argoSettled({
        status: { sync: { status: 'Synced' }, reconciledAt: later, operationState: op('Running') },
      }),
      false,
    );
  });

  it('reads the resource table of argocd app get by its header columns', () => {
    const text = [
      'Name:               argocd/c001-a',
      '',
      'GROUP  KIND        NAMESPACE  NAME  STATUS     HEALTH       HOOK  MESSAGE',
      '       ConfigMap   c001-a     cfg   Synced                        configmap/cfg created',
      'apps   Deployment  c001-a     web   OutOfSync  Progressing        ',
      '',
    ].join('\n');
    const t = parseAppGetResources(text);
    assert.deepEqual(t.get('/ConfigMap/c001-a/cfg'), {
      GROUP: '',
      KIND: 'ConfigMap',
      NAMESPACE: 'c001-a',
      NAME: 'cfg',
      STATUS: 'Synced',
      HEALTH: '',
      HOOK: '',
      MESSAGE: 'configmap/cfg created',
    });
    assert.equal(t.get('apps/Deployment/c001-a/web')!['HEALTH'], 'Progressing');
    assert.equal(parseAppGetResources('no table').size, 0);
  });

  it("compares tree health only where Argo CD's controller assesses it: not hooks, not a Skip target", () => {
    assert.equal(healthAssessed({ kind: 'Job', hook: true }, 'Healthy'), false);
    assert.equal(healthAssessed({ kind: 'ConfigMap' }, 'Missing'), false, 'no sync status, no live object');
    assert.equal(healthAssessed({ kind: 'ConfigMap', status: 'OutOfSync' }, 'Missing'), true);
    assert.equal(healthAssessed({ kind: 'ConfigMap' }, 'Healthy'), true, 'a live object with a copied id');
    assert.equal(healthAssessed(undefined, 'Healthy'), true);
  });

  it("finds the cluster-scoped objects of a case's plain YAML that carry the side's name", () => {
    const c = parseCase(
      minimal +
        'repo:\n  app/a.yaml: |\n    kind: ClusterRole\n    apiVersion: rbac.authorization.k8s.io/v1\n    metadata: {name: "${NS}-reader"}\n' +
        '    ---\n    kind: ClusterRole\n    apiVersion: rbac.authorization.k8s.io/v1\n    metadata: {name: shared}\n' +
        '    ---\n    kind: Role\n    apiVersion: rbac.authorization.k8s.io/v1\n    metadata: {name: "${NS}-r"}\n' +
        '  app/kustomization.yaml: "resources: [a.yaml]"\n',
      'c999.yaml',
    );
    assert.deepEqual(repoClusterScoped(c, 'c999-a'), [
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'c999-a-reader' },
      },
    ]);
  });

  it("knows when Argo CD's operation ended, or is held by a sync window", () => {
    assert.equal(operationEnded({ status: { operationState: { phase: 'Succeeded' } } }), true);
    assert.equal(
      operationEnded({ operation: {}, status: { operationState: { phase: 'Succeeded' } } }),
      false,
    );
    assert.equal(
      operationEnded({
        operation: {},
        status: { operationState: { phase: 'Running', message: 'one or more tasks are running' } },
      }),
      false,
    );
    assert.equal(
      operationEnded({
        operation: {},
        status: { operationState: { phase: 'Running', message: 'Sync operation blocked by sync window' } },
      }),
      true,
    );
    assert.equal(operationEnded({ operation: {} }), false);
  });

  it("parses Argo CD's cluster stats table and our shards JSON", () => {
    // `argocd admin cluster stats --replicas 2 --sharding-method legacy` of Argo CD 3.6.1 on the rig
    // (2026-11-28), one cluster Secret added; `admin cluster shards` has no per-cluster rows.
    const argo = parseArgoShards(
      'SERVER                          SHARD  CONNECTION  NAMESPACES COUNT  APPS COUNT  RESOURCES COUNT\n' +
        'https://c0.lead.example:6443    1                  0                 0           0\n' +
        'https://kubernetes.default.svc  0      Successful  0                 0           2543\n',
    );
    assert.deepEqual(
      [...argo],
      [
        ['https://c0.lead.example:6443', '1'],
        ['https://kubernetes.default.svc', '0'],
      ],
    );
    assert.equal(
      parseArgoShards(
        'SHARD  RESOURCES COUNT  % OF TOTAL  % OF AVG PER SHARD (1271)\n0      2543             100%        200%\n',
      ).size,
      0,
    );
    const ours = parseOurShards(
      { clusters: [{ server: 'https://c0.x:6443', shards: { legacy: 1 } }] },
      'legacy',
    );
    assert.deepEqual([...ours], [['https://c0.x:6443', '1']]);
  });

  it('summary counts cases not run and identical fields', () => {
    const rows = compareFields('c1', 'p', '', { a: 1 }, { a: 1 });
    const s = summary(
      [
        { id: 'c1', name: 'x', family: 'f', phases: [], rows, notRun: [], notes: [] },
        {
          id: 'c2',
          name: 'y',
          family: 'f',
          phases: [],
          rows: [],
          notRun: ['case: needs helm (not on PATH)'],
          notes: [],
        },
      ],
      true,
    );
    assert.equal(s.casesRun, 1);
    assert.equal(s.casesNotRun, 1);
    assert.equal(s.casesIdentical, 1);
    assert.equal(s.fieldsCompared, 1);
    assert.deepEqual(s.notRun, { 'case: needs helm (not on PATH)': 1 });
  });
});

describe('conformance operations phase', () => {
  it("writes a rollback as argocd app rollback does: the history entry's revision and source", () => {
    const source = { repoURL: 'http://git/x.git', path: 'app', targetRevision: 'HEAD' };
    const app = {
      spec: { syncPolicy: { syncOptions: ['CreateNamespace=true'] } },
      status: { history: [{ id: 0, revision: 'r1', source }] },
    };
    assert.deepEqual(stepOperation({ op: 'rollback', id: 0 }, app, []), {
      sync: {
        revision: 'r1',
        syncOptions: ['CreateNamespace=true'],
        syncStrategy: { apply: {} },
        source,
      },
      initiatedBy: { username: 'conformance' },
    });
    assert.throws(() => stepOperation({ op: 'rollback', id: 3 }, app, []), /no history entry 3/);
  });

  it('writes a sync with the n-th commit, retry, and local manifests as sorted JSON', () => {
    const op = stepOperation(
      {
        op: 'sync',
        revision: '${REV:2}',
        retry: { limit: 1 },
        manifests: [{ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a' } }],
      },
      undefined,
      ['sha1', 'sha2'],
    );
    assert.deepEqual(op, {
      sync: {
        revision: 'sha2',
        syncStrategy: { hook: {} },
        manifests: ['{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}'],
      },
      initiatedBy: { username: 'conformance' },
      retry: { limit: 1 },
    });
  });

  it('views an app after a step: operation state, conditions, finalizers; times masked inside messages', () => {
    const app = {
      metadata: { finalizers: ['b', 'a'] },
      status: {
        sync: { status: 'OutOfSync', revision: 'r' },
        operationState: {
          phase: 'Running',
          message: 'failed. Retrying attempt #1 at 2026-01-01T00:02:00Z.',
          retryCount: 1,
          startedAt: '2026-01-01T00:00:00Z',
          syncResult: { revision: 'r', resources: [{ kind: 'Job', name: 'j', hookPhase: 'Failed' }] },
        },
      },
    };
    const v = operationsView(app, 'step');
    assert.deepEqual(v.finalizers, ['a', 'b']);
    assert.equal(v.operationState.message, 'failed. Retrying attempt #1 at <time>.');
    assert.equal(v.operationState.syncResult.resources['/Job//j'].hookPhase, 'Failed');
    assert.equal(v.sync, undefined);
    assert.deepEqual(operationsView(undefined, 'delete'), { gone: true });
    assert.deepEqual(operationsView(app, 'final').sync, { status: 'OutOfSync', revision: 'r' });
  });

  it("compares a step's writes: lagging-cache refusals and repeated deletes noted, parallel runs sorted", () => {
    const w = (verb: string, resource: string, name: string, subresource?: string) => ({
      verb,
      resource,
      namespace: 'n',
      name,
      dryRun: false,
      ...(subresource ? { subresource } : {}),
    });
    const notes: string[] = [];
    const out = stepWrites(
      [
        w('patch', 'configmaps', 'b'),
        w('create', 'configmaps', 'a'),
        w('create', 'batch/jobs', 'j'),
        w('delete', 'configmaps', 'a'),
        w('delete', 'batch/jobs', 'j'),
        w('delete', 'configmaps', 'a'),
        w('delete', 'configmaps', 'gone', '(404)'),
        w('create', 'batch/jobs', 'j', '(409)'),
      ],
      (n) => notes.push(n),
    );
    assert.deepEqual(out, [
      'create configmaps n/a',
      'patch configmaps n/b',
      'create batch/jobs n/j',
      'delete batch/jobs n/j',
      'delete configmaps n/a',
    ]);
    assert.equal(notes.length, 1);
    assert.match(notes[0]!, /^3 write\(s\) of a lagging cache not compared: /);
  });
});
