/**
 * The controller's log (`kubectl gitops controller`): one line per event that says what happened to an app
 * or to the controller, as text (`<time> <app> <what>`) or, with `-o json`, one JSON object per line for
 * log shippers: `{"time", "app", "event", ...fields}` (`event`: the event's type, the loop's operation events
 * under their documented names `operation-start` / `operation-done`: `printedEventName`). Progress of
 * renders, cache lists and single sync tasks is left out (the loop emits them for the interactive
 * printers); `status-written` only at `-v 2`+. ApplicationSet events (`appset-*`) name the set
 * (`applicationset <ns>/<name>`); `appset-reconciled` only at `-v 1`+.
 */
import { printedEventName } from './structured.js';

type AnyEvent = { type: string; app?: string; key?: string } & Record<string, unknown>;

const SKIPPED = new Set([
  'render-start',
  'render-done',
  'cache-sync-start',
  'cache-sync-progress',
  'compare-done',
  'validate-start',
  'validate-done',
  'wave-start',
  'wave-done',
  'task',
  'run-start',
  'app-done',
]);

function text(e: AnyEvent): string | undefined {
  const s = (v: unknown): string => (v === undefined || v === null ? '' : String(v));
  switch (e.type) {
    case 'controller-ready':
      return `watching ${s(e['apps'])} applications, ${s(e['projects'])} projects`;
    case 'controller-reloading':
      return `reloading settings and Secrets (${s(e['reason'])})`;
    case 'shard':
      return `shard ${s(e['shard'])} of ${s(e['replicas'])}: ${(e['owned'] as string[]).length} clusters (${(e['owned'] as string[]).join(', ')})`;
    case 'app-added':
      return 'added';
    case 'app-removed':
      return 'removed';
    case 'refreshed':
      return e['error']
        ? `refresh failed: ${s(e['error'])}`
        : `${s(e['sync'])} ${s(e['health'])}${e['revision'] ? ` at ${s(e['revision']).slice(0, 7)}` : ''} (${s(e['reason'])}, level ${s(e['level'])})`;
    case 'drift':
      return `drift on ${(e['resources'] as string[]).join(', ')}${e['healing'] ? ': self-healing' : ''}`;
    case 'auto-sync-skipped':
      return `auto-sync skipped: ${s(e['reason'])}`;
    case 'app-operation-start': {
      const r = e['request'] as {
        initiatedBy?: { automated?: boolean; username?: string };
        revision?: string;
      };
      const who = r.initiatedBy?.automated ? 'automated' : (r.initiatedBy?.username ?? 'requested');
      return `sync started (${who})${r.revision ? ` to ${r.revision.slice(0, 7)}` : ''}`;
    }
    case 'app-operation-done':
      return `sync ${s(e['phase'])}${e['message'] ? `: ${s(e['message'])}` : ''}`;
    case 'status-written':
      return `status written (${(e['fields'] as string[]).join(', ')})`;
    case 'app-deleting':
      return `deleting: ${s(e['step'])}${e['detail'] ? ` ${s(e['detail'])}` : ''}`;
    case 'cache-sync-done':
      return e['error'] ? `cluster ${s(e['cluster'])}: ${s(e['error'])}` : undefined;
    case 'appset-controller-ready':
      return `watching ${s(e['appsets'])} ApplicationSets`;
    case 'appset-application':
      return `${s(e['action'])} Application ${s(e['app'])}`;
    case 'appset-error':
      return `${e['app'] ? `Application ${s(e['app'])}: ` : ''}${s(e['reason'])}: ${s(e['message'])}`;
    case 'appset-warning':
      return s(e['message']);
    case 'appset-reconciled':
      return `reconciled: ${s(e['applications'])} applications${Number(e['requeueMs']) > 0 ? `, again in ${Math.round(Number(e['requeueMs']) / 1000)}s` : ''}`;
    case 'appset-status-written':
      return `status written (${(e['fields'] as string[]).join(', ')})`;
    case 'loop-stopping':
      return `stopping (${s(e['reason'])})`;
    default:
      return undefined;
  }
}

/** One log line for the event, or undefined when it is not logged. */
export function controllerLogLine(
  event: { type: string },
  options: { json: boolean; time: Date; verbosity: number },
): string | undefined {
  const e = event as AnyEvent;
  if (SKIPPED.has(e.type)) return undefined;
  if ((e.type === 'status-written' || e.type === 'appset-status-written') && options.verbosity < 2)
    return undefined;
  if (e.type === 'appset-reconciled' && options.verbosity < 1) return undefined;
  const line = text(e);
  if (line === undefined) return undefined;
  const time = options.time.toISOString();
  if (options.json) {
    const { type, app, key, ...rest } = e;
    return JSON.stringify({
      time,
      ...(app ? { app } : {}),
      ...(key ? { key } : {}),
      event: printedEventName(type),
      ...rest,
    });
  }
  const appset = typeof e['appset'] === 'string' ? `applicationset ${e['appset']}` : undefined;
  return `${time} ${e.key ?? appset ?? e.app ?? '-'} ${line}`;
}
