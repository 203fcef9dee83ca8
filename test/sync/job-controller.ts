/**
 * A stand-in Job controller for sync tests on the embedded API server (it runs no Pods). On the real
 * kube-apiserver (KG_TEST_SERVER) the real Job controller and the rig's kubelet stand-in run the Jobs (a
 * Job's Pod fails when its command is `false`: docs/conformance.md), so the stand-in only records the Jobs
 * created; a test that needs a Job to fail there must make its Pod fail.
 */
import type { ClusterConnection, ResourceInfo } from '../../src/cluster/index.js';
import { realServer } from '../support/embedded.js';
import { finishedJobStatus } from '../support/jobs.js';

export const JOB: ResourceInfo = {
  group: 'batch',
  version: 'v1',
  kind: 'Job',
  plural: 'jobs',
  namespaced: true,
  verbs: [],
};

/**
 * Acts as the Job controller: every Job created in `namespace` gets a Complete (or Failed) condition (on the
 * real server: only recorded, see above). Returns the names of the Jobs created, in order.
 */
export async function jobController(
  conn: ClusterConnection,
  namespace: string,
  fail: (name: string) => boolean,
  signal: AbortSignal,
): Promise<string[]> {
  const seen: string[] = [];
  const stream = await conn.client.watch(JOB, { namespace, signal });
  void (async () => {
    try {
      for await (const ev of stream) {
        if (ev.type !== 'ADDED') continue;
        const name = ev.object.metadata?.name ?? '';
        seen.push(name);
        if (realServer) continue;
        const type = fail(name) ? 'Failed' : 'Complete';
        await conn.client.request({
          verb: 'patch',
          method: 'PATCH',
          path: `/apis/batch/v1/namespaces/${namespace}/jobs/${name}/status`,
          body: { status: finishedJobStatus(type) },
          contentType: 'application/merge-patch+json',
          subject: `job ${name}`,
          groupKind: 'batch/Job',
        });
      }
    } catch {
      // aborted
    }
  })();
  return seen;
}
