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
 *
 * Layout: the built-in printers are data by group/kind in table/core.ts, table/workloads.ts and
 * table/networking-rbac.ts, sharing the formatting and column helpers of table/cells.ts; this file picks the
 * printer (built-in, default or custom resource) and builds the Table.
 */
import type { Json, JsonMap, KObject, PrinterColumn, ResourceType } from './types.js';
import { apiVersionOf, isMap } from './types.js';
import type { Printer } from './table/cells.js';
import { AGE, NAME, name, since } from './table/cells.js';
import { CORE_PRINTERS } from './table/core.js';
import { NETWORKING_RBAC_PRINTERS } from './table/networking-rbac.js';
import { WORKLOAD_PRINTERS } from './table/workloads.js';

export { formatLabelSelector, humanDuration } from './table/cells.js';

export function wantsTable(accept: string): boolean {
  return /as=Table/.test(accept);
}

/** printers.go column handlers of built-in kinds, by group/kind. */
const PRINTERS: Record<string, Printer> = {
  ...CORE_PRINTERS,
  ...WORKLOAD_PRINTERS,
  ...NETWORKING_RBAC_PRINTERS,
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
