/**
 * Server-side printing (`Accept: application/json;as=Table;g=meta.k8s.io;v=v1`), which `kubectl get` asks
 * for. Three sources of columns, as on a real server:
 * - Built-in kinds with a printer: the columns and cells of kube-apiserver's printers (kubernetes
 *   pkg/printers/internalversion/printers.go `AddHandlers` and the `print<Kind>` functions). The server
 *   always generates the wide form (pkg/printers/storage `TableConvertor` passes `Wide: true`): every row
 *   carries every cell, and kubectl hides the columns with priority > 0 unless `-o wide`.
 * - Built-in kinds without a printer (Role, ClusterRole, CustomResourceDefinition): the registry's default
 *   convertor (k8s.io/apiserver pkg/registry/rest/table.go): Name and `Created At` (RFC 3339, UTC).
 * - Custom resources: Name, then the CRD version's additionalPrinterColumns; a version without any gets one
 *   `Age` column (apiextensions-apiserver `serveDefaultColumnsIfEmpty`, cells as its
 *   registry/customresource/tableconvertor: `date` columns print the age, a missing value is null).
 * Row objects follow `includeObject`: PartialObjectMetadata by default (`Metadata`), the whole object with
 * `Object` (what `kubectl get --sort-by` asks for), none with `None`.
 */
import type { Json, JsonMap, KObject, PrinterColumn, ResourceType } from './types.js';
import { apiVersionOf, isMap } from './types.js';

export function wantsTable(accept: string): boolean {
  return /as=Table/.test(accept);
}

/** apimachinery's `duration.HumanDuration`, for the Age columns. */
export function humanDuration(ms: number): string {
  if (ms < -1000) return '<invalid>';
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (h < 24 * 8) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
  if (h < 24 * 365 * 2) return `${d}d`;
  const y = Math.floor(d / 365);
  if (h < 24 * 365 * 8) return d % 365 === 0 ? `${y}y` : `${y}y${d % 365}d`;
  return `${y}y`;
}

/** printers.go `translateTimestampSince`: the age of a timestamp, `<unknown>` when there is none. */
function since(timestamp: unknown): string {
  const t = typeof timestamp === 'string' ? Date.parse(timestamp) : NaN;
  return Number.isNaN(t) ? '<unknown>' : humanDuration(Date.now() - t);
}

// ---- reading fields of a JSON object ----

const map = (v: unknown): JsonMap => (isMap(v) ? v : {});
const list = (v: unknown): Json[] => (Array.isArray(v) ? v : []);
const maps = (v: unknown): JsonMap[] => list(v).filter(isMap);
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
/** The value at a dotted path of plain keys. */
const at = (o: unknown, path: string): Json | undefined => {
  let cur: unknown = o;
  for (const key of path.split('.')) cur = isMap(cur) ? cur[key] : undefined;
  return cur as Json | undefined;
};
const orNone = (s: string): string => (s === '' ? '<none>' : s);

/** apimachinery `labels.FormatLabels`: `k=v` sorted by key, `<none>` when empty. */
function formatLabels(labels: unknown): string {
  return orNone(
    Object.entries(map(labels))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(','),
  );
}

/**
 * apimachinery `metav1.FormatLabelSelector`: the selector's requirements sorted by key (`k=v`, `k in (a,b)`,
 * `k notin (a,b)`, `k`, `!k`), `<none>` when it selects nothing or is absent.
 */
export function formatLabelSelector(selector: unknown): string {
  if (!isMap(selector)) return '<none>';
  const reqs: Array<[string, string]> = Object.entries(map(selector['matchLabels'])).map(([k, v]) => [
    k,
    `${k}=${String(v)}`,
  ]);
  for (const e of maps(selector['matchExpressions'])) {
    const key = str(e['key']);
    const values = list(e['values']).map(String).sort().join(',');
    const op = str(e['operator']);
    if (op === 'In') reqs.push([key, `${key} in (${values})`]);
    else if (op === 'NotIn') reqs.push([key, `${key} notin (${values})`]);
    else if (op === 'Exists') reqs.push([key, key]);
    else if (op === 'DoesNotExist') reqs.push([key, `!${key}`]);
  }
  reqs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return orNone(reqs.map(([, r]) => r).join(','));
}

/** printers.go `layoutContainerCells`: container names and images, comma-separated. */
function containerCells(podSpec: unknown): [string, string] {
  const containers = maps(map(podSpec)['containers']);
  return [containers.map((c) => str(c['name'])).join(','), containers.map((c) => str(c['image'])).join(',')];
}

/** The `ip` or `hostname` of each load-balancer ingress point, comma-separated (wide form: not cut). */
function loadBalancerAddresses(status: unknown): string {
  return maps(map(map(status)['loadBalancer'])['ingress'])
    .map((i) => str(i['ip']) || str(i['hostname']))
    .filter((s) => s !== '')
    .join(',');
}

const hasTrueCondition = (o: KObject, type: string): boolean =>
  maps(at(o, 'status.conditions')).some((c) => c['type'] === type && c['status'] === 'True');

// ---- column definitions ----

interface Column {
  name: string;
  type: string;
  format?: string;
  priority?: number;
  description: string;
}

const NAME: Column = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace.',
};
const AGE: Column = {
  name: 'Age',
  type: 'string',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
};
const col = (name: string, type: string, description: string, priority = 0): Column => ({
  name,
  type,
  description,
  priority,
});
const CONTAINERS = col('Containers', 'string', 'Names of each container in the template.', 1);
const IMAGES = col('Images', 'string', 'Images referenced by each container in the template.', 1);
const selectorColumn = (description: string): Column => col('Selector', 'string', description, 1);

/** A printer: its columns and the cells of one object, in column order. */
interface Printer {
  columns: Column[];
  cells(o: KObject): Json[];
}

const name = (o: KObject): string => o.metadata.name ?? '';
const age = (o: KObject): string => since(o.metadata.creationTimestamp);

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

/** printers.go `formatHosts`: the first three rule hosts, `*` when none. */
function ingressHosts(o: KObject): string {
  const rules = maps(at(o, 'spec.rules'));
  const hosts: string[] = [];
  let more = false;
  for (const r of rules) {
    if (hosts.length === 3) more = true;
    if (!more && str(r['host'])) hosts.push(str(r['host']));
  }
  if (!hosts.length) return '*';
  return more ? `${hosts.join(',')} + ${rules.length - 3} more...` : hosts.join(',');
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

/** rbac `SubjectsStrings` as printRoleBinding joins them: users, groups, service accounts. */
function subjects(o: KObject): [string, string, string] {
  const users: string[] = [];
  const groups: string[] = [];
  const sas: string[] = [];
  for (const s of maps(o['subjects'])) {
    if (s['kind'] === 'User') users.push(str(s['name']));
    else if (s['kind'] === 'Group') groups.push(str(s['name']));
    else if (s['kind'] === 'ServiceAccount') sas.push(`${str(s['namespace'])}/${str(s['name'])}`);
  }
  return [users.join(', '), groups.join(', '), sas.join(', ')];
}

const ROLE_BINDING: Printer = {
  columns: [
    NAME,
    col('Role', 'string', 'RoleRef can only reference a Role or ClusterRole.'),
    AGE,
    col('Users', 'string', 'Users in the roleBinding', 1),
    col('Groups', 'string', 'Groups in the roleBinding', 1),
    col('ServiceAccounts', 'string', 'ServiceAccounts in the roleBinding', 1),
  ],
  cells: (o) => [
    name(o),
    `${str(at(o, 'roleRef.kind'))}/${str(at(o, 'roleRef.name'))}`,
    age(o),
    ...subjects(o),
  ],
};

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

/** printers.go column handlers of built-in kinds, by group/kind. */
const PRINTERS: Record<string, Printer> = {
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
  'networking.k8s.io/Ingress': {
    columns: [
      NAME,
      col(
        'Class',
        'string',
        'The name of the IngressClass resource that should be used for additional configuration',
      ),
      col('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule'),
      col('Address', 'string', 'Address is a list containing ingress points for the load-balancer'),
      col('Ports', 'string', 'Ports of TLS configurations that open'),
      AGE,
    ],
    cells: (o) => [
      name(o),
      str(at(o, 'spec.ingressClassName')) || '<none>',
      ingressHosts(o),
      loadBalancerAddresses(o['status']),
      list(at(o, 'spec.tls')).length ? '80, 443' : '80',
      age(o),
    ],
  },
  'rbac.authorization.k8s.io/RoleBinding': ROLE_BINDING,
  'rbac.authorization.k8s.io/ClusterRoleBinding': ROLE_BINDING,
};

/** k8s.io/apiserver pkg/registry/rest/table.go: kinds without a printer. */
const DEFAULT_PRINTER: Printer = {
  columns: [
    NAME,
    {
      name: 'Created At',
      type: 'date',
      description:
        'CreationTimestamp is a timestamp representing the server time when this object was created.',
    },
  ],
  cells: (o) => {
    const t = Date.parse(o.metadata.creationTimestamp ?? '');
    return [name(o), Number.isNaN(t) ? null : new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z')];
  },
};

/** The value of a simple JSON path (`.a.b`, `.a[0].b`, `{.a.b}`), as the CRD column path is restricted to. */
function jsonPathValue(obj: KObject, path: string): Json | undefined {
  const steps = path
    .replace(/^\{/, '')
    .replace(/\}$/, '')
    .match(/\.[^.[]+|\[\d+\]|\['[^']*'\]/g);
  let cur: Json | undefined = obj as unknown as Json;
  for (const step of steps ?? []) {
    if (step.startsWith('[') && !step.startsWith("['"))
      cur = Array.isArray(cur) ? cur[Number(step.slice(1, -1))] : undefined;
    else {
      const key = step.startsWith("['") ? step.slice(2, -2) : step.slice(1);
      cur = isMap(cur) ? cur[key] : undefined;
    }
  }
  return cur;
}

/** apiextensions `cellForJSONValue`; string columns print the value as text (JSON for objects). */
function customCell(type: string, v: Json | undefined): Json {
  if (v === undefined || v === null) return null;
  switch (type) {
    case 'string':
      return typeof v === 'object' ? JSON.stringify(v) : String(v);
    case 'integer':
      return typeof v === 'number' ? Math.trunc(v) : null;
    case 'number':
      return typeof v === 'number' ? v : null;
    case 'boolean':
      return typeof v === 'boolean' ? v : null;
    case 'date':
      return typeof v === 'string' ? (Number.isNaN(Date.parse(v)) ? '<invalid>' : since(v)) : null;
    default:
      return null;
  }
}

/** The printer of a CRD version: Name, then its additionalPrinterColumns or the default Age column. */
function customResourcePrinter(t: ResourceType, version: string): Printer {
  const given = t.printerColumns?.[version] ?? [];
  const columns: PrinterColumn[] = given.length
    ? given
    : [
        {
          name: 'Age',
          type: 'date',
          jsonPath: '.metadata.creationTimestamp',
          description: AGE.description,
        },
      ];
  return {
    columns: [
      NAME,
      ...columns.map((c) => ({
        name: c.name,
        type: c.type,
        format: c.format ?? '',
        priority: c.priority ?? 0,
        description: c.description ?? `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
      })),
    ],
    cells: (o) => [name(o), ...columns.map((c) => customCell(c.type, jsonPathValue(o, c.jsonPath)))],
  };
}

export function printerFor(t: ResourceType, version: string): Printer {
  if (t.crd) return customResourcePrinter(t, version);
  return PRINTERS[`${t.group}/${t.kind}`] ?? DEFAULT_PRINTER;
}

/** `includeObject` of a Table request (meta/v1 TableOptions): what each row carries as its `object`. */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

export function includeObjectOf(query: URLSearchParams): IncludeObject {
  const v = query.get('includeObject');
  return v === 'None' || v === 'Object' ? v : 'Metadata';
}

export function renderTable(
  t: ResourceType,
  version: string,
  items: KObject[],
  withColumns: boolean,
  listMeta?: unknown,
  include: IncludeObject = 'Metadata',
): JsonMap {
  const printer = printerFor(t, version);
  const rows = items.map((o): JsonMap => {
    const cells = printer.cells(o);
    // None: no object; Object: the whole object (kubectl --sort-by and custom columns ask for it); the
    // default Metadata: PartialObjectMetadata without managedFields.
    if (include === 'None') return { cells };
    if (include === 'Object')
      return {
        cells,
        object: { ...o, apiVersion: apiVersionOf(t.group, version), kind: t.kind } as unknown as Json,
      };
    const { managedFields: _mf, ...metadata } = o.metadata;
    return {
      cells,
      object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata } as unknown as Json,
    };
  });
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    // A list's metadata, else (get, watch events) the object's resourceVersion, as printers.go
    // GenerateTable and the default convertor set it.
    metadata: (isMap(listMeta)
      ? listMeta
      : items.length === 1 && items[0]!.metadata.resourceVersion
        ? { resourceVersion: items[0]!.metadata.resourceVersion }
        : {}) as Json,
    columnDefinitions: withColumns
      ? printer.columns.map((c) => ({
          name: c.name,
          type: c.type,
          format: c.format ?? '',
          description: c.description,
          priority: c.priority ?? 0,
        }))
      : [],
    rows,
  };
}
