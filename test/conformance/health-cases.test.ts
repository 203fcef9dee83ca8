/**
 * The health family's cases (conformance/cases/health, written by conformance/cases/generate/health.ts)
 * change a recorded vector so a real cluster takes it and leaves it alone: a Job names another manager
 * (`spec.managedBy`) and gets the interim condition kube-apiserver requires beside a terminal one; a Pod
 * carries the annotation the rig's kubelet stand-in skips. None of that may change the verdict the case is
 * about: the live object of every Job and Pod case must have the health of the vector it came from.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { loadCases } from '../../conformance/compare/case.js';
import { jobStatusAsServerTakes, RECORDED_JOB_MANAGER } from '../../conformance/cases/generate/health.js';
import { STANDIN_IGNORE_ANNOTATION } from '../../conformance/rig/paths.js';
import { getResourceHealth, type Unstructured } from '../../src/health/index.js';
import { fixturesDir } from '../support/paths.js';

const root = join(fileURLToPath(import.meta.url), '..', '..', '..');
const health = loadCases(join(root, 'conformance', 'cases')).filter((c) => c.family === 'health');

function vectorOf(provenance: string): Unstructured {
  const file = /\(test\/fixtures\/(health-vectors\/[^)]+)\)/.exec(provenance)?.[1];
  assert.ok(file, provenance);
  return parse(readFileSync(join(fixturesDir, file), 'utf8'), { uniqueKeys: false }) as Unstructured;
}

describe('health cases as set up on the rig', () => {
  const cases = health.filter((c) => ['Job', 'Pod'].includes(String(c.live[0]?.kind)));

  it('every Job and Pod vector is there and kept from the rig controllers', () => {
    assert.equal(cases.filter((c) => c.live[0]!.kind === 'Job').length, 4);
    assert.equal(cases.filter((c) => c.live[0]!.kind === 'Pod').length, 13);
    for (const c of cases) {
      const live = c.live[0]!;
      if (live.kind === 'Job') assert.equal(live.spec.managedBy, RECORDED_JOB_MANAGER, c.id);
      else assert.equal(live.metadata.annotations[STANDIN_IGNORE_ANNOTATION], 'true', c.id);
    }
  });

  it('the live object has the recorded vector health (status and message)', () => {
    for (const c of cases) {
      const got = getResourceHealth(c.live[0] as Unstructured);
      const want = getResourceHealth(vectorOf(c.provenance));
      assert.ok(want, c.id);
      assert.deepEqual(got, want, c.id);
    }
  });

  it('a terminal Job condition gets its interim one just before it, as the Job controller writes them', () => {
    const t = { lastProbeTime: 'T', lastTransitionTime: 'T' };
    const failed = { ...t, type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'm' };
    assert.deepEqual(jobStatusAsServerTakes({ failed: 1, conditions: [failed] }), {
      failed: 1,
      conditions: [{ ...failed, type: 'FailureTarget' }, failed],
    });
    const complete = { ...t, type: 'Complete', status: 'True' };
    assert.deepEqual(jobStatusAsServerTakes({ conditions: [complete] }).conditions, [
      {
        ...t,
        type: 'SuccessCriteriaMet',
        status: 'True',
        reason: 'CompletionsReached',
        message: 'Reached expected number of succeeded pods',
      },
      complete,
    ]);
    // Already there, or not terminal: unchanged.
    const interim = { ...t, type: 'FailureTarget', status: 'True' };
    assert.deepEqual(jobStatusAsServerTakes({ conditions: [interim, failed] }).conditions, [interim, failed]);
    const suspended = { ...t, type: 'Suspended', status: 'True' };
    assert.deepEqual(jobStatusAsServerTakes({ conditions: [suspended] }).conditions, [suspended]);
    assert.deepEqual(jobStatusAsServerTakes({ active: 1 }), { active: 1 });
  });
});
