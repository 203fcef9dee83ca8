/**
 * core/v1 Pod, as gitops-engine `health_pod.go` judges it.
 *
 * A pod is "long-running" when `spec.restartPolicy` is `Always`, or when it carries
 * `argocd.argoproj.io/ignore-restart-policy: "true"` and is not a hook (a hook Pod must never fail early:
 * Argo CD would then re-run it after the error clears). Only long-running pods get the waiting-reason check
 * and the Ready/last-termination verdicts. An absent restartPolicy is not `Always` (the API server always
 * fills it in on live pods).
 */
import { ANNOTATION_IGNORE_RESTART_POLICY, isHook } from './annotations.js';
import { annotations, conditions, int, map, objects, result, str } from './fields.js';
import type { CheckInput, HealthResult, Obj } from './types.js';

/** Waiting reasons that mean the container is failing: `Err*`, `*Error`, `*BackOff`. */
const FAILING_WAITING_REASON: readonly ((reason: string) => boolean)[] = [
  (r) => r.startsWith('Err'),
  (r) => r.endsWith('Error'),
  (r) => r.endsWith('BackOff'),
];

interface ContainerStatus {
  name: string;
  waiting?: { reason: string; message: string };
  terminated?: { reason: string; message: string; exitCode: number };
  lastTerminated: boolean;
}

function containerStatuses(obj: Obj, path: string): ContainerStatus[] {
  return objects(obj, path).map(({ item, at }) => {
    const out: ContainerStatus = {
      name: str(item, 'name', at) ?? '',
      lastTerminated: map(item, 'lastState.terminated', at) !== undefined,
    };
    if (map(item, 'state.waiting', at) !== undefined) {
      out.waiting = {
        reason: str(item, 'state.waiting.reason', at) ?? '',
        message: str(item, 'state.waiting.message', at) ?? '',
      };
    }
    if (map(item, 'state.terminated', at) !== undefined) {
      out.terminated = {
        reason: str(item, 'state.terminated.reason', at) ?? '',
        message: str(item, 'state.terminated.message', at) ?? '',
        exitCode: int(item, 'state.terminated.exitCode', at) ?? 0,
      };
    }
    return out;
  });
}

/** The message of a failed container: its termination message, `OOMKilled`, or the exit code. */
function failMessage(c: ContainerStatus): string {
  const t = c.terminated;
  if (!t) return '';
  if (t.message !== '') return t.message;
  if (t.reason === 'OOMKilled') return t.reason;
  if (t.exitCode !== 0) return `container ${JSON.stringify(c.name)} failed with exit code ${t.exitCode}`;
  return '';
}

export function podHealth({ obj }: CheckInput): HealthResult {
  const restartPolicy = str(obj, 'spec.restartPolicy') ?? '';
  const ignoreRestartPolicy = annotations(obj)[ANNOTATION_IGNORE_RESTART_POLICY] === 'true' && !isHook(obj);
  const longRunning = restartPolicy === 'Always' || ignoreRestartPolicy;
  const containers = containerStatuses(obj, 'status.containerStatuses');
  const initContainers = containerStatuses(obj, 'status.initContainerStatuses');
  const phase = str(obj, 'status.phase') ?? '';
  const message = str(obj, 'status.message') ?? '';
  const ready = conditions(obj).some((c) => c.type === 'Ready' && c.status === 'True');

  if (longRunning) {
    const failing = containers.filter(
      (c) => c.waiting && FAILING_WAITING_REASON.some((matches) => matches(c.waiting?.reason ?? '')),
    );
    if (failing.length > 0) {
      return result('Degraded', failing.map((c) => c.waiting?.message ?? '').join(', '));
    }
  }

  switch (phase) {
    case 'Pending':
      return result('Progressing', message);
    case 'Succeeded':
      return result('Healthy', message);
    case 'Failed': {
      if (message !== '') return result('Degraded', message);
      for (const c of [...initContainers, ...containers]) {
        const msg = failMessage(c);
        if (msg !== '') return result('Degraded', msg);
      }
      return result('Degraded');
    }
    case 'Running': {
      if (longRunning) {
        if (ready) return result('Healthy', message);
        if (containers.some((c) => c.lastTerminated)) return result('Degraded', message);
        return result('Progressing', message);
      }
      // Run-to-completion pods (typically hooks) are Progressing while they run, whatever their state.
      if (restartPolicy === 'OnFailure' || restartPolicy === 'Never') return result('Progressing', message);
      break;
    }
  }
  return result('Unknown', message);
}
