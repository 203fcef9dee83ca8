/**
 * The HTTP front of the embedded API server: URL routing (the real server's request-info rules), request
 * counting, fault injection, and JSON responses. Plain HTTP on 127.0.0.1, no authentication.
 *
 * Routing: `/api/v1/...` is the core group, `/apis/<group>/<version>/...` the others; then
 * `[namespaces/<ns>/]<plural>[/<name>[/<subresource>]]`, where `namespaces/<name>/status|finalize` is a
 * subresource of the namespace. GET without a name is list (watch with `watch=1|true`), DELETE without a
 * name is deletecollection. Bodies are JSON (apply patches YAML or JSON) up to 3 MiB.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiCore, RequestContext, Result } from './api.js';
import { listObjects } from './list.js';
import { scaleSubresource } from './scale.js';
import type { Deleter } from './delete.js';
import { apiVersionsDoc, groupDocFor, groupListDoc, resourceListDoc, versionDoc } from './discovery.js';
import { OpenApiDocs } from './openapi.js';
import { decodeProtobufObject } from './protobuf.js';
import { PageNotFound } from './errors.js';
import { OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_LEGACY } from './openapi-v2-proto.js';
import { ApiError, STALE_MESSAGE, conflict, methodNotAllowed, notFoundPath } from './errors.js';
import type { FaultInjector, RequestStats } from './faults.js';
import { includeObjectOf, renderTable, wantsTable } from './table.js';
import type { KObject, Verb } from './types.js';
import { hasScale, hasStatus, qualifiedResource } from './types.js';
import type { WatchHub } from './watch.js';

const MAX_BODY = 3 * 1024 * 1024;
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

/** A JSON document already serialized (cached OpenAPI documents). */
function sendText(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * The offered media type an Accept header prefers (goautoneg, as kube-openapi uses it): the highest q, then
 * the first listed; `*\/*` and `type/*` match the first offer they cover. No header: the first offer.
 */
export function negotiate(accept: string, offers: string[]): string | undefined {
  if (!accept.trim()) return offers[0];
  let best: { type: string; q: number } | undefined;
  for (const range of accept.split(',')) {
    const [mediaRange = '', ...params] = range.split(';').map((p) => p.trim());
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!(q > 0)) continue;
    const type =
      mediaRange === '*/*'
        ? offers[0]
        : mediaRange.endsWith('/*')
          ? offers.find((o) => o.startsWith(mediaRange.slice(0, -1)))
          : offers.find((o) => o === mediaRange);
    if (type !== undefined && (!best || q > best.q)) best = { type, q };
  }
  return best?.type;
}

function sendJson(
  res: ServerResponse,
  code: number,
  body: unknown,
  headers: Record<string, string | string[]> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) reject(new ApiError(413, 'BadRequest', 'request entity too large'));
      else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Route {
  ctx: RequestContext;
  verb: Verb;
}

export class Router {
  constructor(
    private readonly core: ApiCore,
    private readonly deleter: Deleter,
    private readonly watches: WatchHub,
    private readonly faults: FaultInjector,
    private readonly stats: RequestStats,
    private readonly hostPort: () => string,
  ) {
    this.openapi = new OpenApiDocs(core.registry);
  }

  private readonly openapi: OpenApiDocs;

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      await this.dispatch(req, res);
    } catch (err) {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (err instanceof PageNotFound) {
        res.writeHead(404, {
          'Content-Type': 'text/plain; charset=utf-8',
          'X-Content-Type-Options': 'nosniff',
        });
        res.end('404 page not found\n');
        return;
      }
      const e =
        err instanceof ApiError
          ? err
          : new ApiError(500, 'InternalError', `Internal error occurred: ${(err as Error).message}`);
      sendJson(res, e.code, e.toStatus(), e.headers);
    }
  }

  /** Discovery and health endpoints; returns false when the path is not one of them. */
  private discovery(parts: string[], res: ServerResponse, accept_?: string): boolean {
    const reg = this.core.registry;
    const path = parts.join('/');
    let doc: unknown;
    if (path === 'version') doc = versionDoc();
    else if (path === 'api') doc = apiVersionsDoc(this.hostPort());
    else if (path === 'apis') doc = groupListDoc(reg);
    else if (parts[0] === 'api' && parts.length === 2) doc = resourceListDoc(reg, '', parts[1]!);
    else if (parts[0] === 'apis' && parts.length === 2) doc = groupDocFor(reg, parts[1]!);
    else if (parts[0] === 'apis' && parts.length === 3) doc = resourceListDoc(reg, parts[1]!, parts[2]!);
    else if (path === 'openapi/v2') {
      this.stats.record('get', 'discovery');
      // kube-openapi's handler: JSON or gnostic protobuf by the Accept header (JSON when absent), else 406.
      const type = negotiate(String(accept_ ?? ''), [
        'application/json',
        OPENAPI_V2_PROTOBUF,
        OPENAPI_V2_PROTOBUF_LEGACY,
      ]);
      if (type === undefined) {
        throw new ApiError(
          406,
          'NotAcceptable',
          `only the following media types are accepted: application/json, ${OPENAPI_V2_PROTOBUF}, ${OPENAPI_V2_PROTOBUF_LEGACY}`,
        );
      }
      if (type === 'application/json') sendText(res, 200, this.openapi.v2Text());
      else {
        const body = this.openapi.v2Protobuf();
        // Always answered under the dotted name (kube-openapi's ReturnedContentType): Go's mime parser, which
        // client-go runs on Content-Type, rejects the "@" of the name clients ask for.
        res.writeHead(200, { 'Content-Type': OPENAPI_V2_PROTOBUF_LEGACY, 'Content-Length': body.length });
        res.end(body);
      }
      return true;
    } else if (path === 'openapi/v3') doc = this.openapi.v3Root();
    else if (parts[0] === 'openapi' && parts[1] === 'v3') {
      this.stats.record('get', 'discovery');
      const text = this.openapi.v3ForPath(parts.slice(2));
      if (text === undefined) throw notFoundPath();
      sendText(res, 200, text);
      return true;
    } else if (path === 'healthz' || path === 'livez' || path === 'readyz') {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('ok');
      return true;
    } else return false;
    this.stats.record('get', 'discovery');
    // An unknown group or version has no discovery handler: the not-found delegate answers.
    if (doc === undefined) throw new PageNotFound();
    sendJson(res, 200, doc);
    return true;
  }

  private route(method: string, parts: string[], query: URLSearchParams, userAgent: string): Route {
    let group: string;
    let version: string;
    let rest: string[];
    if (parts[0] === 'api') [group, version, rest] = ['', parts[1] ?? '', parts.slice(2)];
    else if (parts[0] === 'apis') [group, version, rest] = [parts[1] ?? '', parts[2] ?? '', parts.slice(3)];
    else throw new PageNotFound();
    // Built-in group/versions are go-restful web services (a Status for what they do not serve); other
    // paths reach the CRD handler, which delegates what no CRD serves to the not-found handler.
    const builtinGroupVersion = this.core.registry.typesAt(group, version).some((t) => !t.crd);
    const unknownResource = (): Error => (builtinGroupVersion ? notFoundPath() : new PageNotFound());
    // The deprecated watch paths (`/api/v1/watch/namespaces/ns/configmaps[/name]`) kube-apiserver still
    // serves, and its OpenAPI lists: a watch of the collection, or of one object by name.
    const legacyWatch = rest[0] === 'watch';
    if (legacyWatch) rest = rest.slice(1);
    let namespace: string | undefined;
    if (rest[0] === 'namespaces' && rest.length >= 3 && !NAMESPACE_SUBRESOURCES.has(rest[2]!)) {
      namespace = rest[1];
      rest = rest.slice(2);
    }
    const [plural, name, subresource, ...extra] = rest;
    if (!plural || extra.length > 0) throw unknownResource();
    const type = this.core.registry.byPlural(group, version, plural);
    if (!type) throw unknownResource();
    if (namespace !== undefined && !type.namespaced) throw notFoundPath();
    if (type.namespaced && name !== undefined && namespace === undefined) throw notFoundPath();
    const subOk =
      (subresource === 'status' && hasStatus(type, version)) ||
      (subresource === 'scale' && hasScale(type, version));
    if (subresource !== undefined && !subOk) throw notFoundPath();
    let verb: Verb;
    let objectName = name;
    const watch = query.get('watch') === 'true' || query.get('watch') === '1';
    if (legacyWatch) {
      if (method !== 'GET' || subresource !== undefined) throw methodNotAllowed();
      if (name !== undefined) {
        const byName = `metadata.name=${name}`;
        const given = query.get('fieldSelector');
        query.set('fieldSelector', given ? `${given},${byName}` : byName);
      }
      objectName = undefined;
      verb = 'watch';
    } else {
      switch (method) {
        case 'GET':
          verb = name === undefined ? (watch ? 'watch' : 'list') : 'get';
          break;
        case 'POST':
          if (name !== undefined) throw methodNotAllowed();
          if (type.namespaced && namespace === undefined) throw methodNotAllowed();
          verb = 'create';
          break;
        case 'PUT':
          verb = 'update';
          break;
        case 'PATCH':
          verb = 'patch';
          break;
        case 'DELETE':
          verb = name === undefined ? 'deletecollection' : 'delete';
          break;
        default:
          throw methodNotAllowed();
      }
    }
    if ((verb === 'update' || verb === 'patch') && name === undefined) throw methodNotAllowed();
    if (subresource && verb !== 'get' && verb !== 'update' && verb !== 'patch') throw methodNotAllowed();
    const ctx: RequestContext = {
      type,
      version,
      query,
      userAgent,
      ...(namespace !== undefined ? { namespace } : {}),
      ...(objectName !== undefined ? { name: objectName } : {}),
      ...(subresource !== undefined ? { subresource } : {}),
    };
    return { ctx, verb };
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://embedded');
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const method = req.method ?? 'GET';
    if (method === 'GET' && this.discovery(parts, res, req.headers['accept'])) return;
    const { ctx, verb } = this.route(
      method,
      parts,
      url.searchParams,
      String(req.headers['user-agent'] ?? ''),
    );
    const resource = qualifiedResource(ctx.type);
    this.stats.record(verb, resource);
    res.once('close', this.stats.begin(verb));
    const delay = this.faults.latencyFor(verb);
    if (delay > 0) await sleep(delay);
    const injected = this.faults.errorFor(verb, resource);
    if (injected) {
      await readBody(req);
      const retry = injected.retryAfterSeconds;
      if (injected.status === 404) throw new PageNotFound();
      const e =
        injected.status === 409
          ? conflict(ctx.type, ctx.name ?? '', STALE_MESSAGE)
          : injected.status === 429
            ? new ApiError(
                429,
                'TooManyRequests',
                'Too many requests, please try again later.',
                { retryAfterSeconds: retry ?? 1 },
                { 'Retry-After': String(retry ?? 1) },
              )
            : new ApiError(
                injected.status,
                'InternalError',
                'Internal error occurred: injected fault',
                retry ? { retryAfterSeconds: retry } : undefined,
                retry ? { 'Retry-After': String(retry) } : {},
              );
      throw e;
    }
    const table = wantsTable(String(req.headers['accept'] ?? ''));
    if (verb === 'watch') {
      let first = true;
      this.watches.serve(ctx, res, (type, obj) => {
        // As the apiserver's watch encoder: a Status passes through; every other object, BOOKMARKs
        // included, goes through the Table convertor, the first one with the column definitions.
        if (!table || type === 'ERROR') return obj;
        const out = renderTable(ctx.type, ctx.version, [obj], first, undefined, includeObjectOf(ctx.query));
        first = false;
        return out;
      });
      return;
    }
    const raw = method === 'GET' ? Buffer.alloc(0) : await readBody(req);
    const contentType = String(req.headers['content-type'] ?? 'application/json');
    let body: string;
    if (raw.length > 0 && /protobuf/.test(contentType) && verb === 'create') {
      body = JSON.stringify(decodeProtobufObject(raw));
    } else if (raw.length > 0 && /protobuf|cbor/.test(contentType)) {
      throw new ApiError(
        415,
        'UnsupportedMediaType',
        'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml',
      );
    } else body = raw.toString('utf8');
    const result = this.run(verb, ctx, body, contentType);
    if (table && (verb === 'get' || verb === 'list')) {
      const list = result.body as { items?: KObject[]; metadata?: unknown };
      const items = verb === 'get' ? [result.body as KObject] : (list.items ?? []);
      sendJson(
        res,
        result.code,
        renderTable(
          ctx.type,
          ctx.version,
          items,
          true,
          verb === 'list' ? list.metadata : undefined,
          includeObjectOf(ctx.query),
        ),
      );
      return;
    }
    sendJson(res, result.code, result.body, result.headers);
  }

  private run(verb: Verb, ctx: RequestContext, body: string, contentType: string): Result {
    if (ctx.subresource === 'scale') return scaleSubresource(this.core, ctx, verb, body, contentType);
    switch (verb) {
      case 'get':
        return this.core.get(ctx);
      case 'list':
        return listObjects(this.core, ctx);
      case 'create':
        return this.core.create(ctx, body);
      case 'update':
        return this.core.update(ctx, body);
      case 'patch':
        return this.core.patch(ctx, body, contentType);
      case 'delete':
        return this.deleter.delete(ctx, body);
      case 'deletecollection':
        return this.deleter.deleteCollection(ctx, body);
      case 'watch':
        throw methodNotAllowed();
    }
  }
}
