/**
 * What an `operation.sync` may put in place of the spec's sources (Argo CD 3.6 types.go `SyncOperation`;
 * controller/sync.go `newSyncOperationResult`, state.go `CompareAppState`):
 *
 * - `source` / `sources`: a rollback (`argocd app rollback` writes the history entry's source(s) with its
 *   `revision` / `revisions`; `argocd app sync` writes the spec's own). Kept as written (the operation is
 *   echoed in `operationState.operation` and its `syncResult.source(s)`); when they differ from the spec,
 *   `sources` holds them parsed as the spec's would be, and the sync renders them instead of the spec's.
 * - `manifests`: a local sync (`argocd app sync --local`, which sends each object as JSON): each string one
 *   object in JSON (Argo CD's `unmarshalManifests` is `json.Unmarshal`: YAML is refused, "ComparisonError:
 *   Failed to load local manifests: invalid character 'a' looking for beginning of value"; "" and "null"
 *   stand for no object), applied as given: nothing is rendered.
 * - Argo CD's API server refuses both while automated sync is enabled ("rollback cannot be initiated when
 *   auto-sync is enabled"; "cannot use local sync when Automatic Sync Policy is enabled unless for dry
 *   run"). **Decision:** there is no API server here, so the controller answers such an operation with
 *   those words (operationState Error) instead of running it: the next auto-sync would undo it at once.
 */
import { UsageError } from '../common/index.js';
import type { KubeObject } from '../util/yaml-docs.js';
import { parseApplication } from './parse.js';
import { deepEqual, isObject, plain, type JsonObject } from './status-json.js';
import type { Application, ApplicationSource } from './types.js';

export const ROLLBACK_WITH_AUTO_SYNC = 'rollback cannot be initiated when auto-sync is enabled';
export const LOCAL_SYNC_WITH_AUTO_SYNC =
  'cannot use local sync when Automatic Sync Policy is enabled unless for dry run';

export interface SyncOverride {
  /** `operation.sync.source` / `sources` as written. */
  source?: JsonObject | undefined;
  sources?: JsonObject[] | undefined;
  /** `operation.sync.manifests` as written. */
  manifests?: string[] | undefined;
  /** The rollback's sources parsed, when they differ from the spec's: rendered instead of the spec's. */
  overrideSources?: ApplicationSource[] | undefined;
  /** The local sync's objects, applied as given. */
  localObjects?: KubeObject[] | undefined;
}

type Fail = (field: string, why: string) => never;

/** Reads `source`, `sources` and `manifests` of `operation.sync` (see the header). */
export function readSyncOverride(
  app: Application,
  sync: JsonObject,
  dryRun: boolean,
  fail: Fail,
): SyncOverride {
  const out: SyncOverride = {};
  const spec = isObject(app.manifest['spec']) ? (app.manifest['spec'] as JsonObject) : {};
  const source = sync['source'];
  if (source !== undefined && source !== null) {
    if (!isObject(source)) return fail('operation.sync.source', 'must be an object');
    out.source = plain(source) as JsonObject;
  }
  const sources = sync['sources'];
  if (Array.isArray(sources) && sources.length > 0) {
    if (!sources.every(isObject)) return fail('operation.sync.sources', 'must be a list of objects');
    out.sources = plain(sources) as JsonObject[];
  } else if (sources !== undefined && sources !== null && !Array.isArray(sources))
    return fail('operation.sync.sources', 'must be a list of objects');

  // newSyncOperationResult: sync.sources (multi-source) or sync.source stand for the spec's.
  const given = out.sources ? { sources: out.sources } : out.source ? { source: out.source } : undefined;
  if (given) {
    const same =
      'sources' in given
        ? deepEqual(given.sources, plain(spec['sources']))
        : deepEqual(given.source, plain(spec['source']));
    if (!same) {
      if (app.syncPolicy.automated) throw refusal(app, ROLLBACK_WITH_AUTO_SYNC);
      const { source: _s, sources: _ss, ...rest } = spec;
      const manifest = { ...app.manifest, spec: { ...rest, ...given } } as KubeObject;
      try {
        out.overrideSources = parseApplication(manifest, app.origin).sources;
      } catch (err) {
        const why = (err instanceof Error ? err.message : String(err)).replace(
          /^.*?failed to load Application[^:]*: /,
          '',
        );
        return fail(
          `operation.sync.${'sources' in given ? 'sources' : 'source'}`,
          `is not a valid source: ${why}`,
        );
      }
    }
  }

  const manifests = sync['manifests'];
  if (manifests !== undefined && manifests !== null) {
    if (!Array.isArray(manifests) || manifests.some((m) => typeof m !== 'string'))
      return fail('operation.sync.manifests', 'must be a list of strings');
    if (manifests.length > 0) {
      if (app.syncPolicy.automated && !dryRun) throw refusal(app, LOCAL_SYNC_WITH_AUTO_SYNC);
      out.manifests = manifests as string[];
      const objects: KubeObject[] = [];
      (manifests as string[]).forEach((text, i) => {
        if (text === '' || text === 'null') return; // UnmarshalToUnstructured: no object
        let doc: unknown;
        try {
          doc = JSON.parse(text);
        } catch (err) {
          throw new OperationRefusal(
            `app ${app.namespace ? `${app.namespace}/${app.name}` : app.name}`,
            `ComparisonError: Failed to load local manifests: ${goJsonError(text, err)}`,
          );
        }
        if (!isObject(doc) || typeof doc['kind'] !== 'string' || typeof doc['apiVersion'] !== 'string')
          return fail(`operation.sync.manifests[${i}]`, 'is not a Kubernetes object (apiVersion and kind)');
        objects.push(doc as unknown as KubeObject);
      });
      out.localObjects = objects;
    }
  }
  return out;
}

/**
 * Go's encoding/json error for text JSON.parse refused, in its words for the common cases (nothing there, a
 * first character no JSON value starts with); otherwise JSON.parse's.
 */
export function goJsonError(text: string, err: unknown): string {
  const t = text.trimStart();
  if (t === '') return 'unexpected end of JSON input';
  const c = t[0]!;
  if (!'{["-0123456789tfn'.includes(c)) return `invalid character '${c}' looking for beginning of value`;
  return err instanceof Error ? err.message : String(err);
}

/** An operation Argo CD refuses before it runs; `reason` is Argo CD's message (the operationState's). */
export class OperationRefusal extends UsageError {
  constructor(
    subject: string,
    readonly reason: string,
  ) {
    super(`failed to run operation: ${reason}`, { subject });
  }
}

function refusal(app: Application, message: string): OperationRefusal {
  return new OperationRefusal(`app ${app.namespace ? `${app.namespace}/${app.name}` : app.name}`, message);
}
