/**
 * Server-side printing (`Accept: application/json;as=Table;g=meta.k8s.io;v=v1`), which `kubectl get` asks
 * for: columns Name and Age, plus a CRD's additionalPrinterColumns (simple `.a.b` JSON paths). Row objects
 * are PartialObjectMetadata, as with the default `includeObject=Metadata`.
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

export function renderTable(
  t: ResourceType,
  items: KObject[],
  withColumns: boolean,
  listMeta?: unknown,
): JsonMap {
  const extra = (t.printerColumns ?? []).filter(
    (c) => c.name.toLowerCase() !== 'age' && c.name.toLowerCase() !== 'name',
  );
  const columnDefinitions: Json[] = [
    {
      name: 'Name',
      type: 'string',
      format: 'name',
      description: 'Name must be unique within a namespace.',
      priority: 0,
    },
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
  ];
  const now = Date.now();
  const rows = items.map((o) => {
    const created = Date.parse(o.metadata.creationTimestamp ?? '');
    const cells: Json[] = [
      o.metadata.name ?? '',
      ...extra.map((c) => {
        const v = jsonPathValue(o, c.jsonPath);
        return v === undefined ? null : typeof v === 'object' ? JSON.stringify(v) : v;
      }),
      Number.isNaN(created) ? '<unknown>' : humanDuration(now - created),
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
