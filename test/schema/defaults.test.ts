// The one defaults table (src/schema/defaults.ts) checked against the schema it is served with: every rule's
// field exists in Kubernetes' published OpenAPI unless the rule names the later release that added it, and
// a rule is applied only where the served schema has its field.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULTS,
  PUBLISHED_OPENAPI,
  SchemaCatalog,
  applyDefaults,
  builtinCatalog,
  publishedDefinitions,
  ruleFieldPath,
  rulesFor,
} from '../../src/schema/index.js';
import type { JsonMap } from '../../src/common/index.js';

const schemas = builtinCatalog();

/** "1.22" of "v1.22.x" */
const served = PUBLISHED_OPENAPI.kubernetesVersion.replace(/^v(\d+\.\d+).*$/, '$1');
const minor = (v: string): number => Number(v.split('.')[1]);

describe('the defaults table', () => {
  it('names only definitions the published schema has', () => {
    for (const name of Object.keys(DEFAULTS)) assert.ok(schemas.definition(name), `${name} is not defined`);
  });

  it('defaults only fields the published schema has, or names the later release that added the field', () => {
    let checked = 0;
    for (const [name, rules] of Object.entries(DEFAULTS)) {
      for (const rule of rules) {
        const path = ruleFieldPath(rule).join('.');
        const field = schemas.fieldAt(schemas.definition(name), ruleFieldPath(rule));
        if (rule.since && minor(rule.since) > minor(served)) {
          assert.equal(
            field,
            undefined,
            `${name} ${path}: since ${rule.since} but the ${served} schema has it`,
          );
        } else {
          assert.ok(field, `${name} ${path} is not in the served ${served} schema`);
          checked++;
        }
      }
    }
    assert.ok(checked > 50, `only ${checked} rules checked`);
  });

  it('applies a rule only when the served schema has its field (Job podReplacementPolicy, 1.28)', () => {
    const names = rulesFor(schemas, 'io.k8s.api.batch.v1.Job').map((r) => r.field);
    assert.ok(names.includes('backoffLimit'));
    assert.ok(!names.includes('podReplacementPolicy'));
    // A catalog whose JobSpec has the field (as a 1.28 server's does) gets the default.
    const defs = { ...publishedDefinitions() };
    const jobSpec = defs['io.k8s.api.batch.v1.JobSpec']!;
    defs['io.k8s.api.batch.v1.JobSpec'] = {
      ...jobSpec,
      properties: {
        ...(jobSpec['properties'] as object),
        podReplacementPolicy: { type: 'string' },
        podFailurePolicy: { type: 'object' },
      },
    };
    const newer = new SchemaCatalog(defs);
    const job = (spec: JsonMap): JsonMap => ({ apiVersion: 'batch/v1', kind: 'Job', spec });
    const a = job({ template: {} });
    applyDefaults(a, newer, 'io.k8s.api.batch.v1.Job', false);
    assert.equal((a['spec'] as JsonMap)['podReplacementPolicy'], 'TerminatingOrFailed');
    const b = job({ podFailurePolicy: { rules: [] } });
    applyDefaults(b, newer, 'io.k8s.api.batch.v1.Job', false);
    assert.equal((b['spec'] as JsonMap)['podReplacementPolicy'], 'Failed');
    const c = job({ template: {} });
    applyDefaults(c, schemas, 'io.k8s.api.batch.v1.Job', true);
    assert.equal((c['spec'] as JsonMap)['podReplacementPolicy'], undefined);
    assert.equal((c['spec'] as JsonMap)['backoffLimit'], 6);
    assert.equal((c['spec'] as JsonMap)['completions'], 1);
    assert.equal((c['spec'] as JsonMap)['parallelism'], 1);
    // completions only when parallelism is unset too (SetDefaults_Job).
    const d = job({ parallelism: 2, template: {} });
    applyDefaults(d, schemas, 'io.k8s.api.batch.v1.Job', true);
    assert.equal((d['spec'] as JsonMap)['completions'], undefined);
  });

  it('StatefulSet partition: only when the strategy type was unset or rollingUpdate is given (SetDefaults_StatefulSet)', () => {
    const strategyOf = (updateStrategy?: JsonMap): unknown => {
      const sts: JsonMap = {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        spec: { ...(updateStrategy ? { updateStrategy } : {}), template: {} },
      };
      applyDefaults(sts, schemas, 'io.k8s.api.apps.v1.StatefulSet', false);
      return (sts['spec'] as JsonMap)['updateStrategy'];
    };
    assert.deepEqual(strategyOf(), { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
    assert.deepEqual(strategyOf({ type: 'RollingUpdate' }), { type: 'RollingUpdate' });
    assert.deepEqual(strategyOf({ type: 'RollingUpdate', rollingUpdate: {} }), {
      type: 'RollingUpdate',
      rollingUpdate: { partition: 0 },
    });
    assert.deepEqual(strategyOf({ type: 'OnDelete' }), { type: 'OnDelete' });
  });

  it('reaches a type wherever it is used: containers of a CronJob, lifecycle httpGet, PVC templates; Job defaults only a Job', () => {
    const cron: JsonMap = {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      spec: {
        parallelism: 2,
        jobTemplate: {
          spec: {
            parallelism: 2,
            template: {
              spec: {
                containers: [
                  {
                    name: 'a',
                    image: 'busybox:1.36',
                    lifecycle: { postStart: { httpGet: { port: 80 } } },
                    env: [{ name: 'N', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
                  },
                ],
              },
            },
          },
        },
      },
    };
    applyDefaults(cron, schemas, 'io.k8s.api.batch.v1.CronJob', false);
    const job = ((cron['spec'] as JsonMap)['jobTemplate'] as JsonMap)['spec'] as JsonMap;
    // SetDefaults_Job takes a *Job: a CronJob's jobTemplate.spec gets none of its defaults.
    assert.equal(job['completions'], undefined);
    assert.equal(job['backoffLimit'], undefined);
    assert.equal(job['suspend'], undefined);
    const c = (((job['template'] as JsonMap)['spec'] as JsonMap)['containers'] as JsonMap[])[0]!;
    assert.equal(c['imagePullPolicy'], 'IfNotPresent');
    assert.deepEqual((c['lifecycle'] as JsonMap)['postStart'], {
      httpGet: { port: 80, path: '/', scheme: 'HTTP' },
    });
    assert.equal(c['resources'], undefined, 'a server-only rule is not applied for the diff');
    const env = (c['env'] as JsonMap[])[0]!;
    assert.deepEqual(env['valueFrom'], { fieldRef: { fieldPath: 'metadata.name', apiVersion: 'v1' } });

    const sts: JsonMap = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      spec: { volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: {} }] },
    };
    applyDefaults(sts, schemas, 'io.k8s.api.apps.v1.StatefulSet', false);
    const spec = sts['spec'] as JsonMap;
    assert.equal(spec['persistentVolumeClaimRetentionPolicy'], undefined, 'a 1.23 field');
    assert.deepEqual((spec['volumeClaimTemplates'] as JsonMap[])[0], {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data' },
      spec: { volumeMode: 'Filesystem' },
      status: { phase: 'Pending' },
    });
  });

  it('is idempotent and keeps values the client sent (null counts as absent, as Go decodes it)', () => {
    const dep: JsonMap = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      spec: { replicas: null, strategy: { type: 'Recreate' }, template: { spec: { containers: [] } } },
    };
    applyDefaults(dep, schemas, 'io.k8s.api.apps.v1.Deployment', true);
    const once = structuredClone(dep);
    applyDefaults(dep, schemas, 'io.k8s.api.apps.v1.Deployment', true);
    assert.deepEqual(dep, once);
    const spec = dep['spec'] as JsonMap;
    assert.equal(spec['replicas'], 1);
    assert.deepEqual(spec['strategy'], { type: 'Recreate' }, 'rollingUpdate only for RollingUpdate');
  });
});
