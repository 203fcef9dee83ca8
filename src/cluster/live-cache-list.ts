/**
 * The list half of the live cache: pages through one scope with limit/continue and makes the store hold
 * exactly the result (relist semantics: objects gone since the last list are deleted, with events).
 * An expired continue token (410) restarts the list from the first page (at most 3 times).
 */
import { isGone } from './errors.js';
import { inScope } from './live-cache-scope.js';
import type { LoopContext, Scope } from './live-cache-scope.js';
import type { KubeObject } from './types.js';

/** Lists `scope` into the store and sets `scope.resourceVersion` to the list's resourceVersion. */
export async function listScope(ctx: LoopContext, scope: Scope, signal: AbortSignal): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      const items: KubeObject[] = [];
      let cont: string | undefined;
      let resourceVersion = '';
      ctx.stats.lists++;
      do {
        const page = await ctx.client.list(scope.info, {
          namespace: scope.namespace,
          labelSelector: scope.labelSelector,
          limit: ctx.pageSize,
          continue: cont,
          signal,
        });
        ctx.stats.listPages++;
        for (const item of page.items) if (inScope(scope, item)) items.push(scope.transform(item));
        resourceVersion = page.resourceVersion;
        cont = page.continue;
      } while (cont);
      ctx.store.replace(
        { group: scope.info.group, kind: scope.info.kind, contains: (o) => inScope(scope, o) },
        items,
      );
      scope.resourceVersion = resourceVersion;
      return;
    } catch (err) {
      if (!isGone(err) || attempt >= 2 || signal.aborted) throw err;
      ctx.onWarning(scope, 'list continue token expired; listing again');
    }
  }
}
