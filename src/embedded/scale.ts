/**
 * The `scale` subresource (what `kubectl scale` and autoscalers use): an autoscaling/v1 Scale view of an
 * object's replica count. GET reads it; PUT and PATCH (merge or JSON patch on the Scale object; strategic
 * merge is treated as merge) change the object's replicas through an ordinary merge patch, so generation,
 * managedFields and watch events follow. A stale resourceVersion is 409; a negative or non-integer replica
 * count is 422.
 * - Deployments, StatefulSets, ReplicaSets: `spec.replicas`, `status.replicas`, the selector's matchLabels.
 * - Custom resources: the paths of the requested version's `subresources.scale` (apiextensions-apiserver
 *   pkg/registry/customresource/etcd.go `scaleFromCustomResource`: an absent replica count reads as 0, the
 *   selector is the string at `labelSelectorPath`; `scaleUpdatedObjectInfo`: the count is written at
 *   `specReplicasPath`, 400 when it is absent from both the stored object and the Scale written).
 * The Scale is serialized as Go does: `spec.replicas` and `status.selector` are omitted when zero/empty.
 */
import type { ApiCore, RequestContext, Result } from './api.js';
import { ApiError, STALE_MESSAGE, badRequest, conflict } from './errors.js';
import { jsonPatch, mergePatch } from './patch.js';
import type { Json, JsonMap, KObject } from './types.js';
import { isMap } from './types.js';

function splitPath(path: string): string[] {
  return path.replace(/^\./, '').split('.').filter(Boolean);
}

function at(o: Json | undefined, parts: string[]): Json | undefined {
  let cur = o;
  for (const p of parts) cur = isMap(cur) ? cur[p] : undefined;
  return cur;
}

export function scaleSubresource(
  core: ApiCore,
  ctx: RequestContext,
  verb: string,
  raw: string,
  contentType: string,
): Result {
  const obj = core.current(ctx);
  const custom = ctx.type.scaleByVersion?.[ctx.version];
  const specPath = splitPath(custom?.specReplicasPath ?? '.spec.replicas');
  const statusPath = splitPath(custom?.statusReplicasPath ?? '.status.replicas');
  const selectorOf = (o: KObject): string => {
    if (custom) {
      const v = custom.labelSelectorPath ? at(o as unknown as Json, splitPath(custom.labelSelectorPath)) : '';
      return typeof v === 'string' ? v : '';
    }
    const sel = at(o as unknown as Json, ['spec', 'selector', 'matchLabels']);
    return Object.entries(isMap(sel) ? sel : {})
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(',');
  };
  const toScale = (o: KObject): JsonMap => {
    const replicas = at(o as unknown as Json, specPath);
    const current = at(o as unknown as Json, statusPath);
    const selector = selectorOf(o);
    const { name, namespace, uid, resourceVersion, creationTimestamp } = o.metadata;
    return {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name, namespace, uid, resourceVersion, creationTimestamp } as JsonMap,
      spec: typeof replicas === 'number' && replicas !== 0 ? { replicas } : {},
      status: {
        replicas: typeof current === 'number' ? current : 0,
        ...(selector ? { selector } : {}),
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
  // A Scale without spec.replicas means 0 (Go's zero value), except a patch of a custom resource that has
  // no replica count yet (the old Scale carries a sentinel the patch leaves in place).
  const unset =
    verb !== 'update' && custom !== undefined && at(obj as unknown as Json, specPath) === undefined;
  const replicas = spec['replicas'] ?? (unset ? undefined : 0);
  if (replicas === undefined)
    throw badRequest(`the spec replicas field ${JSON.stringify(custom?.specReplicasPath)} cannot be empty`);
  if (typeof replicas !== 'number' || replicas < 0 || !Number.isInteger(replicas)) {
    throw new ApiError(
      422,
      'Invalid',
      `Scale.autoscaling "${obj.metadata.name}" is invalid: spec.replicas: Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`,
    );
  }
  const { subresource: _s, ...main } = ctx;
  const patch = specPath.reduceRight<Json>((inner, key) => ({ [key]: inner }), replicas);
  const res = core.patch(main, JSON.stringify(patch), 'application/merge-patch+json');
  return { code: 200, body: toScale(res.body as KObject) };
}
