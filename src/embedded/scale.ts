/**
 * The `scale` subresource of Deployments, StatefulSets and ReplicaSets (what `kubectl scale` uses): an
 * autoscaling/v1 Scale view of spec.replicas (status.replicas and the selector as a string). GET reads it;
 * PUT and PATCH (merge or JSON patch on the Scale object; strategic merge is treated as merge) change the
 * object's spec.replicas through an ordinary merge patch, so generation, managedFields and watch events
 * follow. A stale resourceVersion is 409; a negative or non-integer replica count is 422.
 */
import type { ApiCore, RequestContext, Result } from './api.js';
import { ApiError, STALE_MESSAGE, badRequest, conflict } from './errors.js';
import { jsonPatch, mergePatch } from './patch.js';
import type { Json, JsonMap, KObject } from './types.js';
import { isMap } from './types.js';

export function scaleSubresource(
  core: ApiCore,
  ctx: RequestContext,
  verb: string,
  raw: string,
  contentType: string,
): Result {
  const obj = core.current(ctx);
  const toScale = (o: KObject): JsonMap => {
    const spec = isMap(o['spec']) ? o['spec'] : {};
    const status = isMap(o['status']) ? o['status'] : {};
    const sel =
      isMap(spec['selector']) && isMap(spec['selector']['matchLabels'])
        ? spec['selector']['matchLabels']
        : {};
    const { name, namespace, uid, resourceVersion, creationTimestamp } = o.metadata;
    return {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name, namespace, uid, resourceVersion, creationTimestamp } as JsonMap,
      spec: { replicas: spec['replicas'] ?? 0 },
      status: {
        replicas: status['replicas'] ?? 0,
        selector: Object.entries(sel)
          .map(([k, v]) => `${k}=${String(v)}`)
          .join(','),
      },
    };
  };
  if (verb === 'get') return { code: 200, body: toScale(obj) };
  let next: Json;
  try {
    const body = JSON.parse(raw) as Json;
    const ct = (contentType.split(';')[0] ?? '').trim();
    if (verb === 'update') next = body;
    else if (ct === 'application/json-patch+json') next = jsonPatch(toScale(obj), body);
    else next = mergePatch(toScale(obj), body);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw badRequest(`the body of the request was in an unknown format: ${(err as Error).message}`);
  }
  const meta = isMap(next) && isMap(next['metadata']) ? next['metadata'] : {};
  if (meta['resourceVersion'] && meta['resourceVersion'] !== obj.metadata.resourceVersion) {
    throw conflict(ctx.type, obj.metadata.name ?? '', STALE_MESSAGE);
  }
  const spec = isMap(next) && isMap(next['spec']) ? next['spec'] : {};
  const replicas = spec['replicas'];
  if (typeof replicas !== 'number' || replicas < 0 || !Number.isInteger(replicas)) {
    throw new ApiError(
      422,
      'Invalid',
      `Scale.autoscaling "${obj.metadata.name}" is invalid: spec.replicas: Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`,
    );
  }
  const { subresource: _s, ...main } = ctx;
  const res = core.patch(main, JSON.stringify({ spec: { replicas } }), 'application/merge-patch+json');
  return { code: 200, body: toScale(res.body as KObject) };
}
