/**
 * Printers of the workload kinds (apps: Deployment, ReplicaSet, StatefulSet, DaemonSet; batch: Job,
 * CronJob): kube-apiserver's printers.go columns and cells, as data by group/kind (the rules: table.ts).
 */
import type { Json, KObject } from '../types.js';
import type { Printer } from './cells.js';
import {
  humanDuration,
  since,
  map,
  list,
  num,
  str,
  at,
  formatLabels,
  formatLabelSelector,
  containerCells,
  hasTrueCondition,
  NAME,
  AGE,
  col,
  CONTAINERS,
  IMAGES,
  selectorColumn,
  name,
  age,
} from './cells.js';

/** printers.go `printJob`. */
function jobCells(o: KObject): Json[] {
  const spec = map(o['spec']);
  const status = map(o['status']);
  const succeeded = num(status['succeeded']);
  const parallelism = num(spec['parallelism']);
  const completions =
    typeof spec['completions'] === 'number'
      ? `${succeeded}/${spec['completions']}`
      : parallelism > 1
        ? `${succeeded}/1 of ${parallelism}`
        : `${succeeded}/1`;
  const start = Date.parse(str(status['startTime']));
  const end = Date.parse(str(status['completionTime']));
  const duration = Number.isNaN(start) ? '' : humanDuration((Number.isNaN(end) ? Date.now() : end) - start);
  const state = hasTrueCondition(o, 'Complete')
    ? 'Complete'
    : hasTrueCondition(o, 'Failed')
      ? 'Failed'
      : o.metadata.deletionTimestamp
        ? 'Terminating'
        : hasTrueCondition(o, 'Suspended')
          ? 'Suspended'
          : hasTrueCondition(o, 'FailureTarget')
            ? 'FailureTarget'
            : hasTrueCondition(o, 'SuccessCriteriaMet')
              ? 'SuccessCriteriaMet'
              : 'Running';
  return [
    name(o),
    state,
    completions,
    duration,
    age(o),
    ...containerCells(at(o, 'spec.template.spec')),
    formatLabelSelector(spec['selector']),
  ];
}

export const WORKLOAD_PRINTERS: Record<string, Printer> = {
  'apps/Deployment': {
    columns: [
      NAME,
      col('Ready', 'string', 'Number of the pod with ready state'),
      col(
        'Up-to-date',
        'string',
        'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
      ),
      col(
        'Available',
        'string',
        'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
      ),
      AGE,
      CONTAINERS,
      IMAGES,
      selectorColumn('Label selector for pods.'),
    ],
    cells: (o) => [
      name(o),
      `${num(at(o, 'status.readyReplicas'))}/${num(at(o, 'spec.replicas'))}`,
      num(at(o, 'status.updatedReplicas')),
      num(at(o, 'status.availableReplicas')),
      age(o),
      ...containerCells(at(o, 'spec.template.spec')),
      formatLabelSelector(at(o, 'spec.selector')),
    ],
  },
  'apps/ReplicaSet': {
    columns: [
      NAME,
      col('Desired', 'integer', 'Replicas is the number of desired pods.'),
      col('Current', 'integer', 'Replicas is the most recently observed number of non-terminating pods.'),
      col(
        'Ready',
        'integer',
        'The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition.',
      ),
      AGE,
      CONTAINERS,
      IMAGES,
      selectorColumn('Selector is a label query over pods that should match the replica count.'),
    ],
    cells: (o) => [
      name(o),
      num(at(o, 'spec.replicas')),
      num(at(o, 'status.replicas')),
      num(at(o, 'status.readyReplicas')),
      age(o),
      ...containerCells(at(o, 'spec.template.spec')),
      formatLabelSelector(at(o, 'spec.selector')),
    ],
  },
  'apps/StatefulSet': {
    columns: [NAME, col('Ready', 'string', 'Number of the pod with ready state'), AGE, CONTAINERS, IMAGES],
    cells: (o) => [
      name(o),
      `${num(at(o, 'status.readyReplicas'))}/${num(at(o, 'spec.replicas'))}`,
      age(o),
      ...containerCells(at(o, 'spec.template.spec')),
    ],
  },
  'apps/DaemonSet': {
    columns: [
      NAME,
      col('Desired', 'integer', 'The total number of nodes that should be running the daemon pod.'),
      col('Current', 'integer', 'The number of nodes that are running at least 1 daemon pod.'),
      col(
        'Ready',
        'integer',
        'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition.',
      ),
      col('Up-to-date', 'integer', 'The total number of nodes that are running updated daemon pod'),
      col(
        'Available',
        'integer',
        'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available.',
      ),
      col(
        'Node Selector',
        'string',
        'NodeSelector is a selector which must be true for the pod to fit on a node.',
      ),
      AGE,
      CONTAINERS,
      IMAGES,
      selectorColumn('A label query over pods that are managed by the daemon set.'),
    ],
    cells: (o) => [
      name(o),
      num(at(o, 'status.desiredNumberScheduled')),
      num(at(o, 'status.currentNumberScheduled')),
      num(at(o, 'status.numberReady')),
      num(at(o, 'status.updatedNumberScheduled')),
      num(at(o, 'status.numberAvailable')),
      formatLabels(at(o, 'spec.template.spec.nodeSelector')),
      age(o),
      ...containerCells(at(o, 'spec.template.spec')),
      formatLabelSelector(at(o, 'spec.selector')),
    ],
  },
  'batch/Job': {
    columns: [
      NAME,
      col('Status', 'string', 'Status of the job.'),
      col('Completions', 'string', 'The number of pods which reached phase Succeeded.'),
      col('Duration', 'string', 'Time required to complete the job.'),
      AGE,
      CONTAINERS,
      IMAGES,
      selectorColumn('A label query over pods that should match the pod count.'),
    ],
    cells: jobCells,
  },
  'batch/CronJob': {
    columns: [
      NAME,
      col('Schedule', 'string', 'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.'),
      col('Timezone', 'string', 'The time zone name for the given schedule.'),
      col('Suspend', 'boolean', 'This flag tells the controller to suspend subsequent executions.'),
      col('Active', 'integer', 'A list of pointers to currently running jobs.'),
      col(
        'Last Schedule',
        'string',
        'Information when was the last time the job was successfully scheduled.',
      ),
      AGE,
      CONTAINERS,
      IMAGES,
      selectorColumn('A label query over pods that should match the pod count.'),
    ],
    cells: (o) => {
      const suspend = at(o, 'spec.suspend');
      const last = at(o, 'status.lastScheduleTime');
      return [
        name(o),
        str(at(o, 'spec.schedule')),
        str(at(o, 'spec.timeZone')) || '<none>',
        suspend === true ? 'True' : suspend === false ? 'False' : '<unset>',
        list(at(o, 'status.active')).length,
        last ? since(last) : '<none>',
        age(o),
        ...containerCells(at(o, 'spec.jobTemplate.spec.template.spec')),
        formatLabelSelector(at(o, 'spec.jobTemplate.spec.selector')),
      ];
    },
  },
};
