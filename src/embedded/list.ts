/**
 * LIST: objects of one type (one namespace or all), filtered by label and field selectors, sorted by
 * namespace/name, paged by `limit` and an opaque `continue` token (the last key served plus the list's
 * resourceVersion). Pages after the first read the current state after that key (not a snapshot of the
 * first page's revision, as etcd serves them) but carry the first page's resourceVersion, so a client that
 * watches from it is replayed every change since and converges; a token older than the watch history
 * window is 410 Expired, as an etcd-compacted token is on a real server.
 * Items of built-in kinds carry no apiVersion/kind (typed lists); custom resource items do.
 */
import type { ApiCore, RequestContext, Result } from './api.js';
import { ApiError, badRequest } from './errors.js';
import type { JsonMap, KObject } from './types.js';
import { apiVersionOf } from './types.js';

export function listObjects(core: ApiCore, ctx: RequestContext): Result {
  const t = ctx.type;
  let items = core.select(ctx);
  // Every page of a paged list carries the first page's resourceVersion (etcd serves the pages at the
  // token's revision), so a watch from the last page's version replays whatever changed meanwhile.
  let rv = core.store.resourceVersion;
  const token = ctx.query.get('continue');
  if (token) {
    let start = '';
    try {
      const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as {
        rv: number;
        start: string;
      };
      if (parsed.rv < core.store.compactedRv) {
        throw new ApiError(
          410,
          'Expired',
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
        );
      }
      start = parsed.start;
      rv = parsed.rv;
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw badRequest(
        'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
      );
    }
    items = items.filter((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name}` > start);
  }
  const limit = Number(ctx.query.get('limit') ?? 0);
  const metadata: JsonMap = { resourceVersion: String(rv) };
  if (limit > 0 && items.length > limit) {
    const last = items[limit - 1]!;
    const start = `${last.metadata.namespace ?? ''}/${last.metadata.name}`;
    metadata['continue'] = Buffer.from(JSON.stringify({ rv, start })).toString('base64url');
    // etcd3 store GetList (k8s.io/apiserver storage/etcd3/store.go): the count is only given when no
    // label or field selector filtered the list, since it counts objects the selector would drop.
    const filtered = Boolean(ctx.query.get('labelSelector') || ctx.query.get('fieldSelector'));
    if (!filtered) metadata['remainingItemCount'] = items.length - limit;
    items = items.slice(0, limit);
  }
  // Typed lists of built-in kinds carry no apiVersion/kind on items; custom resource lists do.
  const render = (o: KObject): unknown => {
    if (t.crd) return core.render(o, t, ctx.version);
    const { apiVersion: _a, kind: _k, ...rest } = o;
    return rest;
  };
  return {
    code: 200,
    body: {
      kind: t.listKind,
      apiVersion: apiVersionOf(t.group, ctx.version),
      metadata,
      items: items.map(render),
    },
  };
}
