/**
 * Printers of the core group's kinds (ConfigMap, Secret, Namespace, ServiceAccount, Pod, Service,
 * PersistentVolumeClaim, Event, Node): kube-apiserver's printers.go columns and `print<Kind>` cells, as data
 * by group/kind (the rules: table.ts).
 */
import type { Json, JsonMap, KObject } from '../types.js';
import { isMap } from '../types.js';
import type { Printer } from './cells.js';
import {
  humanDuration,
  since,
  map,
  list,
  maps,
  num,
  str,
  at,
  orNone,
  formatLabels,
  loadBalancerAddresses,
  hasTrueCondition,
  NAME,
  AGE,
  col,
  selectorColumn,
  name,
  age,
} from './cells.js';

/** printers.go `printPod` (the READY, STATUS and RESTARTS rules of kubectl get pods). */
function podCells(o: KObject): Json[] {
  const spec = map(o['spec']);
  const status = map(o['status']);
  const initSpecs = maps(spec['initContainers']);
  const restartable = new Set(initSpecs.filter((c) => c['restartPolicy'] === 'Always').map((c) => c['name']));
  const total = maps(spec['containers']).length + restartable.size;
  let ready = 0;
  let restarts = 0;
  let sidecarRestarts = 0;
  let lastRestart = 0;
  let lastSidecarRestart = 0;
  let reason = str(status['phase']);
  if (str(status['reason'])) reason = str(status['reason']);
  for (const c of maps(status['conditions']))
    if (c['type'] === 'PodScheduled' && c['reason'] === 'SchedulingGated') reason = 'SchedulingGated';
  const finishedAt = (c: JsonMap): number => {
    const t = Date.parse(str(at(c, 'lastState.terminated.finishedAt')));
    return Number.isNaN(t) ? 0 : t;
  };
  let initializing = false;
  const initStatuses = maps(status['initContainerStatuses']);
  for (let i = 0; i < initStatuses.length; i++) {
    const c = initStatuses[i]!;
    restarts += num(c['restartCount']);
    lastRestart = Math.max(lastRestart, finishedAt(c));
    const sidecar = restartable.has(c['name'] ?? '');
    if (sidecar) {
      sidecarRestarts += num(c['restartCount']);
      lastSidecarRestart = Math.max(lastSidecarRestart, finishedAt(c));
    }
    const terminated = at(c, 'state.terminated');
    const waitingReason = str(at(c, 'state.waiting.reason'));
    if (isMap(terminated) && num(terminated['exitCode']) === 0) continue;
    if (sidecar && c['started'] === true) {
      if (c['ready'] === true) ready++;
      continue;
    }
    if (isMap(terminated)) {
      reason = str(terminated['reason'])
        ? `Init:${str(terminated['reason'])}`
        : num(terminated['signal']) !== 0
          ? `Init:Signal:${num(terminated['signal'])}`
          : `Init:ExitCode:${num(terminated['exitCode'])}`;
    } else if (waitingReason && waitingReason !== 'PodInitializing') reason = `Init:${waitingReason}`;
    else reason = `Init:${i}/${initSpecs.length}`;
    initializing = true;
    break;
  }
  if (!initializing || hasTrueCondition(o, 'Initialized')) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let running = false;
    const statuses = maps(status['containerStatuses']);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i]!;
      restarts += num(c['restartCount']);
      lastRestart = Math.max(lastRestart, finishedAt(c));
      const terminated = at(c, 'state.terminated');
      if (str(at(c, 'state.waiting.reason'))) reason = str(at(c, 'state.waiting.reason'));
      else if (isMap(terminated))
        reason = str(terminated['reason'])
          ? str(terminated['reason'])
          : num(terminated['signal']) !== 0
            ? `Signal:${num(terminated['signal'])}`
            : `ExitCode:${num(terminated['exitCode'])}`;
      else if (c['ready'] === true && isMap(at(c, 'state.running'))) {
        running = true;
        ready++;
      }
    }
    if (reason === 'Completed' && running) reason = hasTrueCondition(o, 'Ready') ? 'Running' : 'NotReady';
  }
  const phase = str(status['phase']);
  if (o.metadata.deletionTimestamp && status['reason'] === 'NodeLost') reason = 'Unknown';
  else if (o.metadata.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed')
    reason = 'Terminating';
  const restartCell =
    restarts !== 0 && lastRestart !== 0
      ? `${restarts} (${humanDuration(Date.now() - lastRestart)} ago)`
      : String(restarts);
  const gates = maps(spec['readinessGates']);
  const conditions = maps(status['conditions']);
  const trueGates = gates.filter(
    (g) => conditions.find((c) => c['type'] === g['conditionType'])?.['status'] === 'True',
  ).length;
  return [
    name(o),
    `${ready}/${total}`,
    reason,
    restartCell,
    age(o),
    orNone(str(maps(status['podIPs'])[0]?.['ip'])),
    orNone(str(spec['nodeName'])),
    orNone(str(status['nominatedNodeName'])),
    gates.length ? `${trueGates}/${gates.length}` : '<none>',
  ];
}

/** printers.go `getServiceExternalIP` (wide form). */
function serviceExternalIP(o: KObject): string {
  const spec = map(o['spec']);
  const external = list(spec['externalIPs']).map(String);
  switch (str(spec['type'])) {
    case 'ClusterIP':
    case 'NodePort':
      return external.length ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = loadBalancerAddresses(o['status']);
      if (external.length) return [...external, ...(lb ? lb.split(',') : [])].join(',');
      return lb || '<pending>';
    }
    case 'ExternalName':
      return str(spec['externalName']);
    default:
      return '<unknown>';
  }
}

/** printers.go `makePortString`: `port[:nodePort]/protocol`, comma-separated. */
function servicePorts(o: KObject): string {
  return orNone(
    maps(at(o, 'spec.ports'))
      .map((p) =>
        num(p['nodePort']) > 0
          ? `${num(p['port'])}:${num(p['nodePort'])}/${str(p['protocol'])}`
          : `${num(p['port'])}/${str(p['protocol'])}`,
      )
      .join(','),
  );
}

/** pkg/apis/core/helper `GetAccessModesAsString`: RWO, ROX, RWX, RWOP in that order. */
function accessModes(modes: unknown): string {
  const have = new Set(list(modes));
  return (
    [
      ['ReadWriteOnce', 'RWO'],
      ['ReadOnlyMany', 'ROX'],
      ['ReadWriteMany', 'RWX'],
      ['ReadWriteOncePod', 'RWOP'],
    ] as const
  )
    .filter(([mode]) => have.has(mode))
    .map(([, short]) => short)
    .join(',');
}

/** printers.go `printNode`: Ready/NotReady/Unknown, then SchedulingDisabled. */
function nodeCells(o: KObject): Json[] {
  const ready = maps(at(o, 'status.conditions')).find((c) => c['type'] === 'Ready');
  const status = [ready ? (ready['status'] === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (at(o, 'spec.unschedulable') === true) status.push('SchedulingDisabled');
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(o.metadata.labels ?? {})) {
    if (k.startsWith('node-role.kubernetes.io/') && k.length > 'node-role.kubernetes.io/'.length)
      roles.add(k.slice('node-role.kubernetes.io/'.length));
    else if (k === 'kubernetes.io/role' && v) roles.add(v);
  }
  const address = (type: string): string =>
    orNone(str(maps(at(o, 'status.addresses')).find((a) => a['type'] === type)?.['address']));
  const info = map(at(o, 'status.nodeInfo'));
  const orUnknown = (s: string): string => s || '<unknown>';
  return [
    name(o),
    status.join(','),
    orNone([...roles].sort().join(',')),
    age(o),
    str(info['kubeletVersion']),
    address('InternalIP'),
    address('ExternalIP'),
    orUnknown(str(info['osImage'])),
    orUnknown(str(info['kernelVersion'])),
    orUnknown(str(info['containerRuntimeVersion'])),
  ];
}

/** printers.go `printEvent`: the object as `kind/name` (kind lower-cased), the source, counts. */
function eventCells(o: KObject): Json[] {
  let first = since(o['firstTimestamp']);
  if (!o['firstTimestamp']) first = since(o['eventTime']);
  let last = o['lastTimestamp'] ? since(o['lastTimestamp']) : first;
  let count = num(o['count']);
  const series = o['series'];
  if (isMap(series)) {
    last = since(series['lastObservedTime']);
    count = num(series['count']);
  } else if (count === 0) count = 1;
  const involved = map(o['involvedObject']);
  const kind = str(involved['kind']).toLowerCase();
  const target = str(involved['name']) ? `${kind}/${str(involved['name'])}` : kind;
  const component = str(at(o, 'source.component')) || str(o['reportingComponent']);
  const instance = str(at(o, 'source.host')) || str(o['reportingInstance']);
  return [
    last,
    str(o['type']),
    str(o['reason']),
    target,
    str(involved['fieldPath']),
    instance ? `${component}, ${instance}` : component,
    str(o['message']).trim(),
    first,
    count,
    name(o),
  ];
}

export const CORE_PRINTERS: Record<string, Printer> = {
  '/ConfigMap': {
    columns: [NAME, col('Data', 'string', 'Data contains the configuration data.'), AGE],
    cells: (o) => [
      name(o),
      Object.keys(map(o['data'])).length + Object.keys(map(o['binaryData'])).length,
      age(o),
    ],
  },
  '/Secret': {
    columns: [
      NAME,
      col('Type', 'string', 'Used to facilitate programmatic handling of secret data.'),
      col('Data', 'string', 'Data contains the secret data.'),
      AGE,
    ],
    cells: (o) => [name(o), str(o['type']), Object.keys(map(o['data'])).length, age(o)],
  },
  '/Namespace': {
    columns: [NAME, col('Status', 'string', 'The status of the namespace'), AGE],
    cells: (o) => [name(o), str(at(o, 'status.phase')), age(o)],
  },
  '/ServiceAccount': {
    columns: [NAME, col('Secrets', 'string', 'Secrets is a list of the secrets in the same namespace.'), AGE],
    cells: (o) => [name(o), list(o['secrets']).length, age(o)],
  },
  '/Pod': {
    columns: [
      NAME,
      col('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
      col('Status', 'string', 'The aggregate status of the containers in this pod.'),
      col(
        'Restarts',
        'string',
        'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
      ),
      AGE,
      col('IP', 'string', 'podIP address allocated to the pod.', 1),
      col('Node', 'string', 'NodeName is a request to schedule this pod onto a specific node.', 1),
      col('Nominated Node', 'string', 'nominatedNodeName is set only when this pod preempts other pods.', 1),
      col(
        'Readiness Gates',
        'string',
        'If specified, all readiness gates will be evaluated for pod readiness.',
        1,
      ),
    ],
    cells: podCells,
  },
  '/Service': {
    columns: [
      NAME,
      col('Type', 'string', 'type determines how the Service is exposed.'),
      col('Cluster-IP', 'string', 'clusterIP is the IP address of the service.'),
      col(
        'External-IP',
        'string',
        'externalIPs is a list of IP addresses for which nodes will also accept traffic.',
      ),
      col('Port(s)', 'string', 'The list of ports that are exposed by this service.'),
      AGE,
      selectorColumn('Route service traffic to pods with label keys and values matching this selector.'),
    ],
    cells: (o) => [
      name(o),
      str(at(o, 'spec.type')),
      orNone(str(list(at(o, 'spec.clusterIPs'))[0])),
      serviceExternalIP(o),
      servicePorts(o),
      age(o),
      formatLabels(at(o, 'spec.selector')),
    ],
  },
  '/PersistentVolumeClaim': {
    columns: [
      NAME,
      col('Status', 'string', 'phase represents the current phase of PersistentVolumeClaim.'),
      col(
        'Volume',
        'string',
        'volumeName is the binding reference to the PersistentVolume backing this claim.',
      ),
      col('Capacity', 'string', 'capacity represents the actual resources of the underlying volume.'),
      col(
        'Access Modes',
        'string',
        'accessModes contains the actual access modes the volume backing the PVC has.',
      ),
      col('StorageClass', 'string', 'StorageClass of the pvc'),
      col('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pvc'),
      AGE,
      col('VolumeMode', 'string', 'volumeMode defines what type of volume is required by the claim.', 1),
    ],
    cells: (o) => {
      const bound = str(at(o, 'spec.volumeName'));
      const vac = str(at(o, 'spec.volumeAttributesClassName'));
      return [
        name(o),
        o.metadata.deletionTimestamp ? 'Terminating' : str(at(o, 'status.phase')),
        bound,
        bound ? str(at(o, 'status.capacity.storage')) : '',
        bound ? accessModes(at(o, 'status.accessModes')) : '',
        o.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'] ??
          str(at(o, 'spec.storageClassName')),
        vac || '<unset>',
        age(o),
        str(at(o, 'spec.volumeMode')) || '<unset>',
      ];
    },
  },
  '/Event': {
    columns: [
      col('Last Seen', 'string', 'The time at which the most recent occurrence of this event was recorded.'),
      col('Type', 'string', 'Type of this event (Normal, Warning), new types could be added in the future'),
      col(
        'Reason',
        'string',
        "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
      ),
      col('Object', 'string', 'The object that this event is about.'),
      col(
        'Subobject',
        'string',
        'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.',
        1,
      ),
      col('Source', 'string', 'The component reporting this event.', 1),
      col('Message', 'string', 'A human-readable description of the status of this operation.'),
      col('First Seen', 'string', 'The time at which the event was first recorded.', 1),
      col('Count', 'string', 'The number of times this event has occurred.', 1),
      { ...NAME, priority: 1 },
    ],
    cells: eventCells,
  },
  '/Node': {
    columns: [
      NAME,
      col('Status', 'string', 'The status of the node'),
      col('Roles', 'string', 'The roles of the node'),
      AGE,
      col('Version', 'string', 'Kubelet Version reported by the node.'),
      col('Internal-IP', 'string', 'List of addresses reachable to the node.', 1),
      col('External-IP', 'string', 'List of addresses reachable to the node.', 1),
      col('OS-Image', 'string', 'OS Image reported by the node from /etc/os-release.', 1),
      col('Kernel-Version', 'string', "Kernel Version reported by the node from 'uname -r'.", 1),
      col(
        'Container-Runtime',
        'string',
        'ContainerRuntime Version reported by the node through runtime remote API.',
        1,
      ),
    ],
    cells: nodeCells,
  },
};
