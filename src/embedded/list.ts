/**
 * LIST: objects of one type (one namespace or all), filtered by label and field selectors, sorted by
 * namespace/name, paged by `limit` and an opaque `continue` token (the last key served plus the list's
 * resourceVersion). Pages after the first read the current state after that key (not a snapshot of the
 * first page's revision, as etcd serves them) but carry the first page's resourceVersion, so a client that
 * watches from it is replayed every change since and converges; a token older than the watch history
 * window is 410 Expired, as an etcd-compacted token is on a real server, with a new token in the Status's
 * metadata that continues at the latest version (etcd3 store `handleCompactedErrorForPaging`).
 * `resourceVersion` with `resourceVersionMatch=Exact` lists the objects as they were at that version
 * (rebuilt from the event history); one older than the history is 410 Expired ("The resourceVersion for the
 * provided list is too old.", etcd3 store's answer to a compacted revision), one newer than the store 504
 * "Too large resource version". `NotOlderThan` and a bare resourceVersion are served the current state
 * (always at least as new). resourceVersionMatch without resourceVersion, with `continue`, with an unknown
 * value, or Exact with "0" is 422, as ValidateListOptions rules (apimachinery internalversion/validation).
 * Items of built-in kinds carry no apiVersion/kind (typed lists); custom resource items do.
 */
import type { ApiCore, RequestContext, Result } from './api.js';
import { ApiError, badRequest } from './errors.js';
import { parseFieldSelector, parseLabelSelector } from './selectors.js';
import type { JsonMap, KObject } from './types.js';
import { apiVersionOf, typeKey } from './types.js';

/** ValidateListOptions' rules for resourceVersionMatch (422 Invalid, as the list handler answers). */
function checkMatch(ctx: RequestContext): 'Exact' | 'NotOlderThan' | undefined {
  const match = ctx.query.get('resourceVersionMatch') ?? '';
  if (!match) return undefined;
  const rv = ctx.query.get('resourceVersion') ?? '';
  const errors: string[] = [];
  if (!rv)
    errors.push(
      'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
    );
  if (ctx.query.get('continue'))
    errors.push(
      'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided',
    );
  if (match !== 'Exact' && match !== 'NotOlderThan')
    errors.push(
      `resourceVersionMatch: Unsupported value: "${match}": supported values: "Exact", "NotOlderThan", ""`,
    );
  if (match === 'Exact' && rv === '0')
    errors.push(
      'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
    );
  if (errors.length > 0) {
    const message = errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
    throw new ApiError(422, 'Invalid', `ListOptions.meta.k8s.io "" is invalid: ${message}`, {
      group: 'meta.k8s.io',
      kind: 'ListOptions',
    });
  }
  return match as 'Exact' | 'NotOlderThan';
}

/** The objects an Exact list at `rv` sees (selectors applied), or the error the real server gives. */
function exactItems(core: ApiCore, ctx: RequestContext, rv: number): KObject[] {
  const snap = core.store.snapshot(typeKey(ctx.type), rv, ctx.namespace);
  if (snap === 'expired')
    throw new ApiError(410, 'Expired', 'The resourceVersion for the provided list is too old.');
  if (snap === undefined) {
    throw new ApiError(
      504,
      'Timeout',
      `Timeout: Too large resource version: ${rv}, current: ${core.store.resourceVersion}`,
      {
        causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
        retryAfterSeconds: 0,
      },
    );
  }
  const labels = parseLabelSelector(ctx.query.get('labelSelector'));
  const fields = parseFieldSelector(ctx.query.get('fieldSelector'), ctx.type.kind);
  return snap.filter((o) => labels(o) && fields(o));
}

export function listObjects(core: ApiCore, ctx: RequestContext): Result {
  const t = ctx.type;
  const match = checkMatch(ctx);
  const exactRv = match === 'Exact' ? Number(ctx.query.get('resourceVersion')) : undefined;
  if (exactRv !== undefined && !Number.isSafeInteger(exactRv)) {
    throw badRequest(`invalid resource version: ${ctx.query.get('resourceVersion')}`);
  }
  let items = exactRv !== undefined ? exactItems(core, ctx, exactRv) : core.select(ctx);
  // Every page of a paged list carries the first page's resourceVersion (etcd serves the pages at the
  // token's revision), so a watch from the last page's version replays whatever changed meanwhile.
  let rv = exactRv ?? core.store.resourceVersion;
  const token = ctx.query.get('continue');
  if (token) {
    let start = '';
    try {
      const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as {
        rv: number;
        start: string;
      };
      if (typeof parsed.start !== 'string' || typeof parsed.rv !== 'number') throw new Error('bad token');
      if (parsed.rv !== -1 && parsed.rv < core.store.compactedRv) {
        // etcd3 store handleCompactedErrorForPaging: 410 with a token that continues at the latest version.
        const expired = new ApiError(
          410,
          'Expired',
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
        );
        expired.listMeta = {
          continue: Buffer.from(JSON.stringify({ rv: -1, start: parsed.start })).toString('base64url'),
        };
        throw expired;
      }
      start = parsed.start;
      // rv -1: continue at the latest version (the token a compacted continue's 410 hands out).
      if (parsed.rv !== -1) rv = parsed.rv;
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
