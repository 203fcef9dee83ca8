/**
 * compareObjects: one (target, live) pair -> Synced/OutOfSync with the unmasked normalized pair
 * (`ResourceComparison`); reportComparison: that comparison -> the masked `CompareResult` printers get;
 * compareResource: both in one call. Pure: no I/O, inputs never mutated. The pipeline (order matters;
 * spec §4):
 *  1. copy both; read the original from live (last-applied annotation, and our managers' managedFields);
 *  2. tracking migration; fields of matching rules' `managedFieldsManagers` removed from both;
 *  3. on target, live and last-applied: server metadata, last-applied annotation and status dropped,
 *     kind fixes, quantities/ports canonical, ignore rules (pointers, jq), empty fields pruned;
 *  4. predicted live = three-way merge (merge.ts) of live and target over the original; the target's
 *     namespace is not compared;
 *  5. API-server defaults (built-in kinds) applied to predicted and live, empty fields pruned again;
 *  6. OutOfSync when they differ, when live is missing, or when the target is missing (extra);
 *  7. (reportComparison) Secret data and sensitive annotations masked on copies of both before changes
 *     and diff text are built from the masked copies only.
 */
import { diff as jsonDiff } from 'json-diff-ts';
import { emptyTree, removeTree, subtract, treeOfEntries, treeOfManagers, treeOfValue } from './fieldset.js';
import type { FieldTree } from './fieldset.js';
import { applyIgnores, compileIgnoreDifferences, identityOf, matchIgnores } from './ignore.js';
import type { CompiledIgnore } from './ignore.js';
import { maskSecrets } from './mask.js';
import { predictLive } from './merge.js';
import {
  applyDefaults,
  canonicalize,
  dropNamespace,
  isBuiltIn,
  kindFixes,
  lastAppliedOf,
  normalizeTracking,
  pruneEmptyFields,
  stripServerFields,
} from './normalize.js';
import { SYNC_OPTIONS_ANNOTATION, SyncOption, splitOptions } from '../common/index.js';
import { clone, deepEqual, groupKindOf, isMap } from './paths.js';
import { DEFAULT_FIELD_MANAGERS, DEFAULT_INSTANCE_LABEL } from './rules.js';
import { builtinCatalog, schemaLookup } from '../schema/index.js';
import type { KindSchema, SchemaLookup } from '../schema/index.js';
import type {
  CompareInput,
  CompareOptions,
  CompareResult,
  Difference,
  DiffStrategy,
  IChange,
  JsonMap,
  KubeObject,
  ReportOptions,
  ResourceComparison,
} from './types.js';
import { toYaml, unifiedDiff } from './unified.js';
import { removeWebhookMutation } from './webhook.js';
import { EMPTY_LABELS_NOTE, keepsEmptyLabels, restoreEmptyLabels } from './quirks.js';

/** Lists whose elements json-diff-ts identifies by `name` (required by the API for these lists). */
const NAMED_LISTS = new Map<string | RegExp, string>([
  [/(^|\.)(containers|initContainers|ephemeralContainers|env|volumes)$/, 'name'],
]);

type Resolved = Required<Omit<CompareOptions, 'ignoreDifferences'>> & { ignores: CompiledIgnore[] };

/**
 * The strategy Argo CD's `Diff` picks (gitops-engine `pkg/diff/diff.go`): structured-merge when the app
 * syncs with `ServerSideApply=true` (controller/state.go `WithStructuredMergeDiff`) or the target carries
 * `argocd.argoproj.io/sync-options: ServerSideApply=true`; else three-way when live has a last-applied
 * annotation that parses; else two-way (`TwoWayDiff` = three-way with the target as its own original).
 */
export function diffStrategy(
  input: CompareInput,
  o: { structuredMergeDiff: boolean },
  lastApplied: JsonMap | undefined,
): DiffStrategy {
  const syncOptions = input.target?.metadata?.annotations?.[SYNC_OPTIONS_ANNOTATION];
  if (input.predictedLive && input.target && input.live) return 'server-side';
  if (o.structuredMergeDiff || splitOptions(syncOptions).includes(SyncOption.ServerSideApply)) {
    return 'structured-merge';
  }
  return lastApplied ? 'three-way' : 'two-way';
}

let builtinLookup: SchemaLookup | undefined;

/** The lookup of Kubernetes' published schemas alone (no CRDs, Argo CD's default known type fields). */
function defaultLookup(): SchemaLookup {
  return (builtinLookup ??= schemaLookup(builtinCatalog()));
}

/** Options with defaults filled in (the one place defaults live). */
export function resolveOptions(o: CompareOptions): Resolved {
  return {
    ignores: compileIgnoreDifferences(o.ignoreDifferences ?? []),
    ignoreResourceStatusField: o.ignoreResourceStatusField ?? 'all',
    trackingMethod: o.trackingMethod ?? 'annotation',
    instanceLabelKey: o.instanceLabelKey ?? DEFAULT_INSTANCE_LABEL,
    fieldManagers: o.fieldManagers ?? DEFAULT_FIELD_MANAGERS,
    structuredMergeDiff: o.structuredMergeDiff ?? false,
    includeMutationWebhook: o.includeMutationWebhook ?? false,
    ignoreAggregatedRoles: o.ignoreAggregatedRoles ?? false,
    sensitiveAnnotations: o.sensitiveAnnotations ?? [],
    diffText: o.diffText ?? true,
    context: o.context ?? 3,
    schemas: o.schemas ?? defaultLookup(),
  };
}

function copy(obj: KubeObject | null | undefined): JsonMap | null {
  return obj ? (clone(obj) as unknown as JsonMap) : null;
}

function normalizeOne(obj: JsonMap, o: Resolved, matched: CompiledIgnore[], kind: KindSchema): void {
  stripServerFields(obj, o.ignoreResourceStatusField);
  kindFixes(obj, o.ignoreAggregatedRoles);
  canonicalize(obj, kind);
  applyIgnores(obj, matched);
  pruneEmptyFields(obj);
}

/**
 * Structured-merge's original: the fields our managers' Apply entries own (structured-merge-diff's
 * `lastSet` is the applier's own Apply entry: an Update entry of the same manager, left by a client-side
 * apply, does not count), minus what any other entry also owns (those fields are never pruned).
 */
function appliedSet(managedFields: unknown, managers: readonly string[]): FieldTree {
  const ours = (m: string, op: string): boolean => managers.includes(m) && op === 'Apply';
  const own = treeOfEntries(managedFields, ours);
  if (!own) return emptyTree();
  const others = treeOfEntries(managedFields, (m, op) => !ours(m, op));
  return others ? subtract(own, others) : own;
}

/** "group/Kind namespace/name" of a pair, e.g. "apps/Deployment shop/web" ("/ConfigMap ..." for core). */
export function describeResource(obj: KubeObject | JsonMap): string {
  const id = identityOf(obj as JsonMap);
  return `${id.group}/${id.kind} ${id.namespace ? `${id.namespace}/` : ''}${id.name}`;
}

/**
 * Compares one resource and reports it, masked (`reportComparison(compareObjects(input), input)`). Throws
 * as `compareObjects`.
 */
export function compareResource(input: CompareInput): CompareResult {
  return reportComparison(compareObjects(input), input);
}

/**
 * Compares one resource: the verdict and the unmasked normalized pair. Throws for invalid
 * ignoreDifferences syntax (a UsageError) and, in server-side diff, a ServerSideDiffError when the dry-run
 * answer has no managedFields of ours (that resource's error).
 */
export function compareObjects(input: CompareInput): ResourceComparison {
  const o = resolveOptions(input);
  let target = copy(input.target);
  const live = copy(input.live);
  const first = target ?? live;
  // The live object is at the target's apiVersion (the caller's duty), so one schema serves both.
  const kind = o.schemas.kindSchema(
    typeof first?.['apiVersion'] === 'string' ? first['apiVersion'] : '',
    typeof first?.['kind'] === 'string' ? first['kind'] : '',
  );
  if (target && live && input.predictedLive) {
    // Server-side diff: the dry-run answer is the predicted live (gitops-engine serverSideDiff).
    target = copy(input.predictedLive)!;
    if (!o.includeMutationWebhook) {
      target = removeWebhookMutation(target, live, o.fieldManagers, kind);
    }
  }
  const subject = target ?? live;
  if (!subject) {
    return {
      status: 'Synced',
      difference: 'none',
      normalizedTarget: null,
      normalizedLive: null,
      strategy: 'two-way',
      label: '',
    };
  }
  const label = describeResource(subject);
  const id = identityOf(subject);
  if (!id.namespace && target && live) id.namespace = identityOf(live).namespace;
  const matched = matchIgnores(o.ignores, id);

  const lastApplied = live ? lastAppliedOf(live) : undefined;
  const strategy = diffStrategy(input, o, lastApplied);
  let originalTree: FieldTree | undefined;
  if (live && target) {
    normalizeTracking(target, live, o.trackingMethod, o.instanceLabelKey);
    const meta = isMap(live['metadata']) ? live['metadata'] : {};
    const trusted = matched.flatMap((m) => m.managers);
    const ignoredTree = treeOfManagers(meta['managedFields'], trusted);
    if (ignoredTree) for (const obj of [target, live, lastApplied]) if (obj) removeTree(obj, ignoredTree);
    if (strategy === 'structured-merge') originalTree = appliedSet(meta['managedFields'], o.fieldManagers);
  }
  // argo-cd#15898 (quirks.ts), judged on the target as Git has it, before normalization drops empty maps.
  const emptyLabels = Boolean(
    target && live && keepsEmptyLabels(target, live, strategy, isBuiltIn(groupKindOf(live))),
  );
  for (const obj of [target, live, lastApplied]) if (obj) normalizeOne(obj, o, matched, kind);

  let normalizedTarget = target;
  const normalizedLive = live;
  let difference: Difference;
  if (target && live) {
    const gk = groupKindOf(live);
    if (strategy === 'server-side') {
      // Both sides come from the server: compared as they are, normalized alike (no merge, no defaults).
      pruneEmptyFields(target);
      pruneEmptyFields(live);
      return settle(label, 'server-side', target, live, deepEqual(target, live) ? 'none' : 'modified');
    }
    // Structured-merge: the original is argocd-controller's applied set alone (no value); three-way: the
    // last-applied annotation; two-way: the target itself (a live-only field is never a difference).
    const original =
      strategy === 'structured-merge' ? undefined : strategy === 'three-way' ? lastApplied : clone(target);
    for (const obj of [target, original]) if (obj) dropNamespace(obj);
    if (original) originalTree = treeOfValue(original, gk);
    originalTree?.fields.get('metadata')?.fields.delete('namespace');
    const predicted = predictLive(live, target, original, originalTree ?? emptyTree(), {
      gk,
      schema: kind,
      granular: strategy === 'structured-merge',
    });
    if (isBuiltIn(gk)) {
      applyDefaults(predicted, kind);
      applyDefaults(live, kind);
    }
    pruneEmptyFields(predicted);
    pruneEmptyFields(live);
    if (emptyLabels) restoreEmptyLabels(predicted);
    normalizedTarget = predicted;
    difference = deepEqual(predicted, live) ? 'none' : 'modified';
  } else {
    difference = target ? 'missing' : 'extra';
  }

  const settled = settle(label, strategy, normalizedTarget, normalizedLive, difference);
  if (emptyLabels) settled.note = EMPTY_LABELS_NOTE;
  return settled;
}

function settle(
  label: string,
  strategy: DiffStrategy,
  normalizedTarget: JsonMap | null,
  normalizedLive: JsonMap | null,
  difference: Difference,
): ResourceComparison {
  const status = difference === 'none' ? 'Synced' : 'OutOfSync';
  return { status, difference, normalizedTarget, normalizedLive, strategy, label };
}

/**
 * The printable result of a comparison: Secret values and sensitive annotations masked on copies of the
 * normalized pair (the comparison keeps its real values), then changes and diff text built from the
 * masked copies only.
 */
export function reportComparison(comparison: ResourceComparison, options: ReportOptions = {}): CompareResult {
  const { difference, strategy, label } = comparison;
  const normalizedTarget = copy(comparison.normalizedTarget as KubeObject | null);
  const normalizedLive = copy(comparison.normalizedLive as KubeObject | null);
  maskSecrets([normalizedTarget, normalizedLive], options.sensitiveAnnotations ?? []);
  const changes: IChange[] =
    difference === 'none'
      ? []
      : jsonDiff(normalizedLive ?? {}, normalizedTarget ?? {}, { embeddedObjKeys: NAMED_LISTS });
  const result: CompareResult = {
    status: comparison.status,
    difference,
    normalizedTarget,
    normalizedLive,
    changes,
    strategy,
    ...(comparison.note ? { note: comparison.note } : {}),
  };
  if ((options.diffText ?? true) && difference !== 'none') {
    result.diffText = unifiedDiff(toYaml(normalizedLive), toYaml(normalizedTarget), {
      oldLabel: `live ${label}`,
      newLabel: `target ${label}`,
      context: options.context ?? 3,
    });
  }
  return result;
}
