/**
 * User Lua health checks: the VM's contract (argo-cd util/lua/lua.go ExecuteHealthLua), the override lookup
 * (GetHealthScript: exact key, then globs), and errors as Unknown health plus the app's error text.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  aggregateHealth,
  assessHealth,
  getResourceHealth,
  HealthOverrides,
  loadLuaVm,
  type Unstructured,
} from '../../src/health/index.js';

const { LuaHealthError, runHealthLua } = await loadLuaVm();

const cm: Unstructured = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'c', namespace: 'n' },
  data: { a: '1', n: null },
  spec: { replicas: 3, ratio: 0.5, list: ['x', 'y'], flag: true },
};
const run = (script: string, open = false): unknown => runHealthLua(script, cm, { useOpenLibs: open });
const fails = (script: string, message: RegExp, open = false): void =>
  assert.throws(
    () => run(script, open),
    (e: unknown) => e instanceof LuaHealthError && message.test(e.message),
  );

describe('Lua health scripts (fengari)', () => {
  it('obj is the object: maps, lists, numbers (whole numbers print as integers), booleans; null is nil', () => {
    assert.deepEqual(
      run(
        'return {status="Healthy", message=obj.data.a .. " " .. obj.spec.replicas .. " " .. obj.spec.ratio .. " " .. #obj.spec.list .. obj.spec.list[2] .. tostring(obj.spec.flag) .. tostring(obj.data.n)}',
      ),
      { status: 'Healthy', message: '1 3 0.5 2ytruenil' },
    );
  });

  it('the returned table: status and message; message left out when empty', () => {
    assert.deepEqual(run('return {status="Degraded", message="broken"}'), {
      status: 'Degraded',
      message: 'broken',
    });
    assert.deepEqual(run('hs = {}\nhs.status = "Progressing"\nreturn hs'), { status: 'Progressing' });
    assert.deepEqual(run('return {Status="Suspended"}'), { status: 'Suspended' });
  });

  it('nil, nothing, an empty table, a list or a mistyped field give no health', () => {
    for (const script of [
      'return nil',
      'local x = 1',
      'return {}',
      'return {"Healthy"}',
      'return {status=1}',
    ])
      assert.equal(run(script), undefined, script);
  });

  it('an unknown or missing status is Unknown "Lua returned an invalid health status"', () => {
    for (const script of ['return {status="Fine"}', 'return {message="x"}'])
      assert.deepEqual(run(script), { status: 'Unknown', message: 'Lua returned an invalid health status' });
  });

  it('a value that is not a table is an error, as are tables JSON cannot hold', () => {
    fails('return "Healthy"', /^expect table output from Lua script, not string$/);
    fails('return 1', /not number$/);
    fails('return {status="Healthy", f=function() end}', /cannot encode function to JSON/);
    fails('return {status="Healthy", [1]="x"}', /cannot encode mixed or invalid key types/);
    fails('local t = {status="Healthy"}; t.self = t; return t', /recursively nested/);
  });

  it("syntax and runtime errors carry Lua's message and line", () => {
    fails('return {', /^<string>:1: /);
    fails(
      'local x = 1\nreturn obj.status.phase',
      /^<string>:2: attempt to index a nil value \(field 'status'\)/,
    );
    fails('error("custom failure")', /^<string>:1: custom failure$/);
  });

  it('a script that never ends is stopped by the instruction limit', () => {
    assert.throws(
      () => runHealthLua('while true do end', cm, { instructionLimit: 100_000 }),
      (e: unknown) =>
        e instanceof LuaHealthError && /stopped after 100000 instructions \(timeout\)/.test(e.message),
    );
  });

  it('libraries: base, table and require("os") always; string, math and os with useOpenLibs; never io or files', () => {
    assert.deepEqual(run('return {status=table.concat({"Hea","lthy"})}'), { status: 'Healthy' });
    assert.deepEqual(
      run(
        'local os = require("os"); return {status=type(os.time()) == "number" and "Healthy" or "Degraded"}',
      ),
      {
        status: 'Healthy',
      },
    );
    fails('return {status=string.upper("healthy")}', /attempt to index a nil value \(global 'string'\)/);
    fails('return {status=os.time()}', /global 'os'/);
    assert.deepEqual(run('return {status=string.gsub("xealthy", "^x", "H")}', true), { status: 'Healthy' });
    assert.deepEqual(
      run('return {status=("healthy"):gsub("^h", "H"), message=tostring(math.floor(2.5))}', true),
      {
        status: 'Healthy',
        message: '2',
      },
    );
    for (const name of ['io', 'debug', 'dofile', 'loadfile'])
      assert.deepEqual(
        run(`return {status=${name} == nil and "Healthy" or "Degraded"}`, true),
        { status: 'Healthy' },
        name,
      );
    assert.deepEqual(
      run(
        'return {status=os.execute == nil and os.exit == nil and os.getenv == nil and "Healthy" or "Degraded"}',
        true,
      ),
      {
        status: 'Healthy',
      },
    );
    fails('require("io")', /module 'io' not found/, true);
  });

  it('print prints nothing (a script cannot corrupt -o json)', () => {
    const writes: string[] = [];
    const original = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string) => (
      writes.push(String(chunk)),
      true
    )) as typeof process.stdout.write;
    try {
      assert.deepEqual(run('print("noise"); return {status="Healthy"}'), { status: 'Healthy' });
    } finally {
      process.stdout.write = original;
    }
    assert.deepEqual(writes, []);
  });
});

// Loaded in `before`, not by a top-level await: with --test-force-exit, a file whose module evaluation is
// still awaiting when its first suite finishes is ended there, and the suites below never run.
let overrides: HealthOverrides;
const OVERRIDE_SCRIPTS: Parameters<typeof HealthOverrides.load>[0] = [
  [
    'ConfigMap',
    { script: 'return {status="Degraded", message="cm " .. obj.metadata.name}', useOpenLibs: false },
  ],
  ['*.example.com/*', { script: 'return {status="Suspended"}', useOpenLibs: false }],
  ['apps/Deployment', { script: 'return nil', useOpenLibs: false }],
  ['batch/Job', { script: '', useOpenLibs: false }],
  ['*/*', { script: 'return obj.nothing.here', useOpenLibs: false }],
];

describe('health overrides (argocd-cm resource.customizations.health)', () => {
  before(async () => {
    overrides = await HealthOverrides.load(OVERRIDE_SCRIPTS);
  });

  it('a set without scripts loads no Lua VM; one with scripts evaluates them', async () => {
    const none = await HealthOverrides.load([['ConfigMap', { script: '', useOpenLibs: false }]]);
    assert.equal(none.size, 0);
    assert.throws(() => none.evaluate({ script: 'return nil', useOpenLibs: false }, cm), /no Lua VM loaded/);
    assert.deepEqual(overrides.evaluate({ script: 'return {status="Healthy"}', useOpenLibs: false }, cm), {
      status: 'Healthy',
    });
  });

  it('exact key first (Kind for the core group), then globs; an empty script does not count', () => {
    assert.equal(overrides.find('', 'ConfigMap')?.script.startsWith('return {status="Degraded"'), true);
    assert.equal(overrides.find('widgets.example.com', 'Widget')?.script, 'return {status="Suspended"}');
    assert.equal(overrides.find('batch', 'Job')?.script, 'return obj.nothing.here');
    assert.equal(overrides.find('', 'Secret'), undefined, '*/* needs a group');
  });

  it('a script replaces the built-in check, even when it gives no health', () => {
    assert.deepEqual(getResourceHealth(cm, { overrides }), { status: 'Degraded', message: 'cm c' });
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { replicas: 1 },
      status: {},
    };
    assert.notEqual(getResourceHealth(deployment), undefined);
    assert.equal(getResourceHealth(deployment, { overrides }), undefined);
  });

  it("Argo CD's documented app-of-apps override (argoproj.io_Application) works as written", async () => {
    // From Argo CD's docs (operator-manual/health.md, "Argo CD App"), verbatim.
    const script = [
      'hs = {}',
      'hs.status = "Progressing"',
      'hs.message = ""',
      'if obj.status ~= nil then',
      '  if obj.status.health ~= nil then',
      '    hs.status = obj.status.health.status',
      '    if obj.status.health.message ~= nil then',
      '      hs.message = obj.status.health.message',
      '    end',
      '  end',
      'end',
      'return hs',
    ].join('\n');
    const apps = await HealthOverrides.load([['argoproj.io/Application', { script, useOpenLibs: false }]]);
    const child = (status?: object): Unstructured => ({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: { name: 'child' },
      ...(status ? { status } : {}),
    });
    assert.equal(getResourceHealth(child()), undefined, 'no health without the override');
    assert.deepEqual(getResourceHealth(child(), { overrides: apps }), { status: 'Progressing' });
    assert.deepEqual(
      getResourceHealth(child({ health: { status: 'Degraded', message: 'x failed' } }), { overrides: apps }),
      {
        status: 'Degraded',
        message: 'x failed',
      },
    );
  });

  it('pending deletion still comes first', () => {
    const deleting = { ...cm, metadata: { name: 'c', deletionTimestamp: '2024-01-01T00:00:00Z' } };
    assert.deepEqual(getResourceHealth(deleting, { overrides }), {
      status: 'Progressing',
      message: 'Pending deletion',
    });
  });

  it('a failing script: Unknown with the error, and the app reports the first error as Argo CD words it', () => {
    const job = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j', namespace: 'n' } };
    const a = assessHealth(job, { overrides });
    assert.equal(a.health?.status, 'Unknown');
    assert.match(a.error ?? '', /^<string>:1: attempt to index a nil value/);
    assert.equal(a.health?.message, a.error);
    const app = aggregateHealth(
      [
        { group: '', kind: 'ConfigMap', namespace: 'n', name: 'c', live: cm },
        { group: 'batch', kind: 'Job', namespace: 'n', name: 'j', live: job },
        {
          group: 'batch',
          kind: 'Job',
          namespace: 'n',
          name: 'k',
          live: { ...job, metadata: { name: 'k', namespace: 'n' } },
        },
      ],
      { health: { overrides } },
    );
    assert.equal(app.status, 'Unknown');
    assert.match(
      app.error ?? '',
      /^failed to get resource health for "Job" with name "j" in namespace "n": <string>:1: attempt to index a nil value/,
    );
    assert.deepEqual(
      app.resources.map((r) => r?.status),
      ['Degraded', 'Unknown', 'Unknown'],
    );
  });

  it('a built-in check that fails is reported the same way (gitops-engine returns its err too)', () => {
    const old = { apiVersion: 'apps/v1beta2', kind: 'Deployment', metadata: { name: 'd', namespace: 'n' } };
    const app = aggregateHealth([
      { group: 'apps', kind: 'Deployment', namespace: 'n', name: 'd', live: old },
    ]);
    assert.deepEqual(app.resources[0], {
      status: 'Unknown',
      message: 'unsupported Deployment GVK: apps/v1beta2, Kind=Deployment',
    });
    assert.equal(
      app.error,
      'failed to get resource health for "Deployment" with name "d" in namespace "n": unsupported Deployment GVK: apps/v1beta2, Kind=Deployment',
    );
  });
});
