/**
 * Server-side printing (`Accept: application/json;as=Table;g=meta.k8s.io;v=v1`), which `kubectl get` asks
 * for: columns Name and Age, plus a CRD's additionalPrinterColumns (simple `.a.b` JSON paths), and for some
 * built-in kinds the columns of kube-apiserver's printers (kubernetes pkg/printers/internalversion/printers.go:
 * ConfigMap Data; Secret Type, Data; Namespace Status; Deployment Ready, Up-to-date, Available and, wide,
 * Containers, Images, Selector). Other built-in kinds get Name and Age only. Row objects are
 * PartialObjectMetadata, as with the default `includeObject=Metadata`.
 */
import type { Json, JsonMap, KObject, ResourceType } from './types.js';
import { isMap } from './types.js';

export function wantsTable(accept: string): boolean {
  return /as=Table/.test(accept);
}

/** apimachinery's HumanDuration, for the Age column. */
export function humanDuration(ms: number): string {
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
  return d < 365 * 2 ? `${d}d` : `${Math.floor(d / 365)}y`;
}

function jsonPathValue(obj: KObject, path: string): Json | undefined {
  let cur: Json | undefined = obj as unknown as Json;
  for (const part of path
    .replace(/^\{?\.?/, '')
    .replace(/\}$/, '')
    .split('.')) {
    if (!part) continue;
    cur = isMap(cur) ? cur[part] : undefined;
  }
  return cur;
}

interface BuiltinColumn {
  name: string;
  type: string;
  description: string;
  priority?: number;
  /** Columns after Age (the wide ones of Deployment). */
  afterAge?: boolean;
  cell(o: KObject): Json;
}

const count = (v: unknown): number => (isMap(v) ? Object.keys(v).length : 0);
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const field = (o: KObject | JsonMap, key: string): JsonMap => {
  const v = (o as unknown as JsonMap)[key];
  return isMap(v) ? v : {};
};

/** printers.go column handlers of built-in kinds, by group/kind. */
const BUILTIN_COLUMNS: Record<string, BuiltinColumn[]> = {
  '/ConfigMap': [
    {
      name: 'Data',
      type: 'integer',
      description: 'Number of data in the ConfigMap',
      cell: (o) => count(field(o, 'data')) + count(field(o, 'binaryData')),
    },
  ],
  '/Secret': [
    {
      name: 'Type',
      type: 'string',
      description: 'The type of the secret',
      cell: (o) => ((o as unknown as JsonMap)['type'] as string | undefined) ?? '',
    },
    {
      name: 'Data',
      type: 'string',
      description: 'Number of data in the secret',
      cell: (o) => count(field(o, 'data')),
    },
  ],
  '/Namespace': [
    {
      name: 'Status',
      type: 'string',
      description: 'The status of the namespace',
      cell: (o) => (field(o, 'status')['phase'] as string | undefined) ?? '',
    },
  ],
  'apps/Deployment': [
    {
      name: 'Ready',
      type: 'string',
      description: 'Number of the pod with ready state',
      cell: (o) => `${num(field(o, 'status')['readyReplicas'])}/${num(field(o, 'spec')['replicas'])}`,
    },
    {
      name: 'Up-to-date',
      type: 'string',
      description:
        'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
      cell: (o) => num(field(o, 'status')['updatedReplicas']),
    },
    {
      name: 'Available',
      type: 'string',
      description:
        'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
      cell: (o) => num(field(o, 'status')['availableReplicas']),
    },
    ...(['Containers', 'Images'] as const).map((name): BuiltinColumn => ({
      name,
      type: 'string',
      description: `${name} of the pod template`,
      priority: 1,
      afterAge: true,
      cell: (o) => {
        const containers = field(field(field(o, 'spec'), 'template'), 'spec')['containers'];
        return (Array.isArray(containers) ? containers : [])
          .map((c) => (isMap(c) ? String(c[name === 'Containers' ? 'name' : 'image'] ?? '') : ''))
          .join(',');
      },
    })),
    {
      name: 'Selector',
      type: 'string',
      description: 'Label selector for pods.',
      priority: 1,
      afterAge: true,
      cell: (o) => {
        const labels = field(field(field(o, 'spec'), 'selector'), 'matchLabels');
        return Object.entries(labels)
          .map(([k, v]) => `${k}=${String(v)}`)
          .join(',');
      },
    },
  ],
};

export function renderTable(
  t: ResourceType,
  items: KObject[],
  withColumns: boolean,
  listMeta?: unknown,
): JsonMap {
  const extra = (t.printerColumns ?? []).filter(
    (c) => c.name.toLowerCase() !== 'age' && c.name.toLowerCase() !== 'name',
  );
  const builtin = t.crd ? [] : (BUILTIN_COLUMNS[`${t.group}/${t.kind}`] ?? []);
  const before = builtin.filter((c) => !c.afterAge);
  const after = builtin.filter((c) => c.afterAge);
  const definition = (c: BuiltinColumn): Json => ({
    name: c.name,
    type: c.type,
    format: '',
    description: c.description,
    priority: c.priority ?? 0,
  });
  const columnDefinitions: Json[] = [
    {
      name: 'Name',
      type: 'string',
      format: 'name',
      description: 'Name must be unique within a namespace.',
      priority: 0,
    },
    ...before.map(definition),
    ...extra.map((c) => ({
      name: c.name,
      type: c.type,
      format: '',
      description: c.description ?? '',
      priority: c.priority ?? 0,
    })),
    {
      name: 'Age',
      type: 'string',
      format: '',
      description:
        'CreationTimestamp is a timestamp representing the server time when this object was created.',
      priority: 0,
    },
    ...after.map(definition),
  ];
  const now = Date.now();
  const rows = items.map((o) => {
    const created = Date.parse(o.metadata.creationTimestamp ?? '');
    const cells: Json[] = [
      o.metadata.name ?? '',
      ...before.map((c) => c.cell(o)),
      ...extra.map((c) => {
        const v = jsonPathValue(o, c.jsonPath);
        return v === undefined ? null : typeof v === 'object' ? JSON.stringify(v) : v;
      }),
      Number.isNaN(created) ? '<unknown>' : humanDuration(now - created),
      ...after.map((c) => c.cell(o)),
    ];
    const { managedFields: _mf, ...metadata } = o.metadata;
    return {
      cells,
      object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata } as unknown as Json,
    };
  });
  const table: JsonMap = {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: (isMap(listMeta) ? listMeta : {}) as Json,
    columnDefinitions: withColumns ? columnDefinitions : [],
    rows,
  };
  return table;
}
