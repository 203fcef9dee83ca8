/** A stand-in Job controller for sync tests on the embedded API server (it runs no Pods). */
import type { ClusterConnection, ResourceInfo } from '../../src/cluster/index.js';
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
 * Acts as the Job controller: every Job created in `namespace` gets a Complete (or Failed) condition. On a
 * real server its Job controller may have started the Job meanwhile (startTime, an active Pod): the status
 * written keeps that startTime and has no active Pod, and a Job that real controller already finished is
 * left as it is. One Job's failure to be written never stops the others.
 */
export async function jobController(
  conn: ClusterConnection,
  namespace: string,
  fail: (name: string) => boolean,
  signal: AbortSignal,
): Promise<string[]> {
  const seen: string[] = [];
  const stream = await conn.client.watch(JOB, { namespace, signal });
  const finish = async (name: string, type: 'Complete' | 'Failed'): Promise<void> => {
    for (let attempt = 0; attempt < 20 && !signal.aborted; attempt++) {
      try {
        const job = await conn.client.get(JOB, namespace, name);
        const current = (job['status'] ?? {}) as { startTime?: string; conditions?: Array<{ type: string }> };
        if ((current.conditions ?? []).some((c) => c.type === 'Complete' || c.type === 'Failed')) return;
        const status = { ...finishedJobStatus(type), active: null, ready: null };
        if (current.startTime) status.startTime = current.startTime;
        await conn.client.request({
          verb: 'patch',
          method: 'PATCH',
          path: `/apis/batch/v1/namespaces/${namespace}/jobs/${name}/status`,
          // With its resourceVersion: a write of the real controller in between is a conflict, tried again.
          body: { metadata: { resourceVersion: job.metadata?.resourceVersion }, status },
          contentType: 'application/merge-patch+json',
          subject: `job ${name}`,
          groupKind: 'batch/Job',
        });
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  void (async () => {
    try {
      for await (const ev of stream) {
        if (ev.type !== 'ADDED') continue;
        const name = ev.object.metadata?.name ?? '';
        seen.push(name);
        void finish(name, fail(name) ? 'Failed' : 'Complete');
      }
    } catch {
      // aborted
    }
  })();
  return seen;
}
