/**
 * OpenAPI documents with the real schemas of the served kinds (src/schema: Kubernetes' published OpenAPI
 * plus the schemas of the stored CRDs), as kube-apiserver serves them:
 * - `/openapi/v2`: one Swagger 2.0 document, every definition and the paths of the served resources
 *   (openapi-paths.ts), as JSON or, when the client asks for it,
 *   as gnostic's protobuf `openapi.v2.Document` (openapi-v2-proto.ts; what client-go's discovery and
 *   kubectl <= 1.28 request).
 * - `/openapi/v3`: the list of group/version documents with a content hash; `/openapi/v3/api/v1` and
 *   `/openapi/v3/apis/<group>/<version>`: OpenAPI 3.0 with `components.schemas` holding the kinds of that
 *   group/version and every schema they reference (`$ref: #/components/schemas/...`; a reference with a
 *   description beside it is wrapped in `allOf`, as kube-openapi writes v3), and the paths of that
 *   group/version (kubectl reads the PATCH operation's `fieldValidation` to decide that the server
 *   validates fields).
 * Documents are built once per set of CRDs (`SchemaCatalog.generation`) and cached as text.
 */
import type { Schema } from '../schema/index.js';
import { PUBLISHED_OPENAPI } from '../schema/index.js';
import type { ResourceRegistry } from './resources.js';
import type { JsonMap } from './types.js';
import { encodeOpenApiV2 } from './openapi-v2-proto.js';
import type { ApiOperation, ApiParameter, ApiPath } from './openapi-paths.js';
import { apiPaths } from './openapi-paths.js';

function gvPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

/** All served group/versions, core first. */
function groupVersions(registry: ResourceRegistry): Array<[string, string]> {
  const out: Array<[string, string]> = [['', 'v1']];
  for (const [g, vs] of registry.groups()) for (const v of vs) out.push([g, v]);
  return out;
}

function hash(text: string): string {
  let h = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h = Math.imul(h ^ c, 0x01000193) >>> 0;
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) >>> 0;
  }
  return (h.toString(16).padStart(8, '0') + h2.toString(16).padStart(8, '0')).toUpperCase();
}

const INFO = { title: 'Kubernetes', version: `${PUBLISHED_OPENAPI.kubernetesVersion}+embedded` };

/** A schema reference, or `{type: object}` when the kind has no published definition. */
function ref(prefix: string, name: string | undefined): JsonMap {
  return name ? { $ref: `${prefix}${name}` } : { type: 'object' };
}

/** Swagger 2.0 parameter: a body with its schema, else a typed query/path value. */
function v2Parameter(p: ApiParameter): JsonMap {
  if (p.in === 'body')
    return {
      name: p.name,
      in: 'body',
      required: p.required === true,
      schema: ref('#/definitions/', p.schema),
    };
  return {
    uniqueItems: true,
    type: p.type ?? 'string',
    description: p.description,
    name: p.name,
    in: p.in,
    ...(p.required ? { required: true } : {}),
  };
}

/** Swagger 2.0 path items (`/openapi/v2` `paths`). */
function v2Paths(paths: ApiPath[]): JsonMap {
  const out: JsonMap = {};
  for (const item of paths) {
    const entry: JsonMap = {};
    for (const o of item.operations) {
      entry[o.method] = {
        description: o.description,
        consumes: o.consumes,
        produces: o.produces,
        schemes: ['https'],
        tags: [o.tag],
        operationId: o.operationId,
        ...(o.parameters.length ? { parameters: o.parameters.map(v2Parameter) } : {}),
        responses: Object.fromEntries(
          o.responses.map((r) => [
            r.code,
            { description: r.description, ...(r.schema ? { schema: ref('#/definitions/', r.schema) } : {}) },
          ]),
        ),
        'x-kubernetes-action': o.action,
        'x-kubernetes-group-version-kind': o.gvk,
      };
    }
    entry['parameters'] = item.parameters.map(v2Parameter);
    out[item.path] = entry;
  }
  return out;
}

/** OpenAPI 3.0 operation: parameters with a schema, the body as `requestBody`, responses per media type. */
function v3Operation(o: ApiOperation): JsonMap {
  const bodyParam = o.parameters.find((p) => p.in === 'body');
  const schemaRef = (name: string | undefined) => ref('#/components/schemas/', name);
  return {
    tags: [o.tag],
    description: o.description,
    operationId: o.operationId,
    ...(o.parameters.some((p) => p.in !== 'body')
      ? { parameters: o.parameters.filter((p) => p.in !== 'body').map(v3Parameter) }
      : {}),
    ...(bodyParam
      ? {
          requestBody: {
            content: Object.fromEntries(o.consumes.map((c) => [c, { schema: schemaRef(bodyParam.schema) }])),
            required: bodyParam.required === true,
          },
        }
      : {}),
    responses: Object.fromEntries(
      o.responses.map((r) => [
        r.code,
        {
          description: r.description,
          ...(r.schema
            ? { content: Object.fromEntries(o.produces.map((m) => [m, { schema: schemaRef(r.schema) }])) }
            : {}),
        },
      ]),
    ),
    'x-kubernetes-action': o.action,
    'x-kubernetes-group-version-kind': o.gvk,
  };
}

function v3Parameter(p: ApiParameter): JsonMap {
  return {
    name: p.name,
    in: p.in,
    description: p.description,
    ...(p.required ? { required: true } : {}),
    schema: { type: p.type ?? 'string', uniqueItems: true },
  };
}

/** Caches documents per registry until the CRD set changes. */
export class OpenApiDocs {
  private generation = -1;
  private v2?: string;
  private v2Proto?: Buffer;
  private readonly v3 = new Map<string, string>();

  constructor(private readonly registry: ResourceRegistry) {}

  private fresh(): void {
    const g = this.registry.schemas.generation;
    if (g !== this.generation) {
      this.generation = g;
      this.v2 = undefined;
      this.v2Proto = undefined;
      this.v3.clear();
    }
  }

  /** `/openapi/v2` as JSON text. */
  v2Text(): string {
    this.fresh();
    if (this.v2 === undefined) {
      const schemas = this.registry.schemas;
      const definitions: Record<string, Schema> = {};
      for (const name of schemas.definitionNames()) definitions[name] = schemas.definition(name)!;
      const paths = v2Paths(apiPaths(this.registry));
      this.v2 = JSON.stringify({ swagger: '2.0', info: INFO, paths, definitions });
    }
    return this.v2;
  }

  /** `/openapi/v2` as gnostic protobuf bytes. */
  v2Protobuf(): Buffer {
    const text = this.v2Text();
    this.v2Proto ??= encodeOpenApiV2(JSON.parse(text) as JsonMap);
    return this.v2Proto;
  }

  /** `/openapi/v3`: the served group/version documents with their hashes. */
  v3Root(): JsonMap {
    const paths: JsonMap = {};
    for (const [g, v] of groupVersions(this.registry)) {
      const text = this.v3Text(g, v)!;
      paths[gvPath(g, v)] = { serverRelativeURL: `/openapi/v3/${gvPath(g, v)}?hash=${hash(text)}` };
    }
    return { paths };
  }

  /** The v3 document text for `api/v1` or `apis/<group>/<version>` (path parts), or undefined. */
  v3ForPath(parts: string[]): string | undefined {
    const [root, a, b, ...rest] = parts;
    if (rest.length) return undefined;
    if (root === 'api' && a && !b) return a === 'v1' ? this.v3Text('', a) : undefined;
    if (root === 'apis' && a && b) return this.registry.typesAt(a, b).length ? this.v3Text(a, b) : undefined;
    return undefined;
  }

  private v3Text(group: string, version: string): string | undefined {
    this.fresh();
    const key = `${group}/${version}`;
    let text = this.v3.get(key);
    if (text === undefined) {
      text = JSON.stringify(this.v3Doc(group, version));
      this.v3.set(key, text);
    }
    return text;
  }

  private v3Doc(group: string, version: string): JsonMap {
    const schemas = this.registry.schemas;
    const paths: JsonMap = {};
    const roots: string[] = [];
    for (const t of this.registry.typesAt(group, version)) {
      for (const kind of [t.kind, t.listKind]) {
        const name = schemas.definitionNameFor({ group, version, kind });
        if (name) roots.push(name);
      }
    }
    for (const item of apiPaths(this.registry)) {
      if (item.group !== group || item.version !== version) continue;
      const entry: JsonMap = {};
      for (const o of item.operations) {
        entry[o.method] = v3Operation(o);
        for (const r of o.responses) if (r.schema) roots.push(r.schema);
        for (const p of o.parameters) if (p.schema) roots.push(p.schema);
      }
      entry['parameters'] = item.parameters.map(v3Parameter);
      paths[item.path] = entry;
    }
    // Every schema the kinds reference, transitively.
    const components: JsonMap = {};
    const todo = [...roots];
    while (todo.length) {
      const name = todo.pop()!;
      if (components[name] !== undefined) continue;
      const def = schemas.definition(name);
      if (!def) continue;
      components[name] = toV3(def, (ref) => todo.push(ref)) as JsonMap;
    }
    return {
      openapi: '3.0.0',
      info: INFO,
      paths,
      components: {
        schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => (a < b ? -1 : 1))),
      },
    };
  }
}

/** A v2 schema as OpenAPI 3: refs point into components, a ref with siblings is wrapped in allOf. */
function toV3(s: unknown, seen: (name: string) => void): unknown {
  if (Array.isArray(s)) return s.map((x) => toV3(x, seen));
  if (typeof s !== 'object' || s === null) return s;
  const src = s as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(src)) {
    if (k === '$ref' && typeof v === 'string') continue;
    // Map keys of `properties` are field names, not schema keywords: convert their values only.
    out[k] =
      k === 'properties' && typeof v === 'object' && v !== null
        ? Object.fromEntries(Object.entries(v).map(([f, fs]) => [f, toV3(fs, seen)]))
        : k.startsWith('x-kubernetes-') || k === 'enum' || k === 'default' || k === 'example'
          ? v
          : toV3(v, seen);
  }
  const ref = src['$ref'];
  if (typeof ref === 'string') {
    const name = ref.slice(ref.lastIndexOf('/') + 1);
    seen(name);
    const target = { $ref: `#/components/schemas/${name}` };
    if (Object.keys(out).length === 0) return target;
    return { allOf: [target], ...out };
  }
  return out;
}
