/**
 * One reconcile of one ApplicationSet, in the order of Argo CD's ApplicationSetReconciler.Reconcile
 * (argo-cd `applicationset/controllers/applicationset_controller.go`; rules in docs/appset-controller.md):
 *
 * 1. Being deleted: without a policy that deletes, the owned Applications lose their owner references
 *    (so the garbage collector keeps them); the set's `resources-finalizer.argocd.argoproj.io` is removed.
 * 2. Generate (src/apps `generateApplications`). A failure: ErrorOccurred with reason
 *    ApplicationGenerationFromParamsError or RenderTemplateParamsError, nothing written, again in 3 min.
 * 3. Validate each Application: a name, no duplicate ("ApplicationSet <set> contains applications with
 *    duplicate name: <name>"), its project exists ("application references project <p> which does not
 *    exist"), its destination resolves ("application destination spec is invalid: ..."). Invalid ones are
 *    skipped; the last message (sorted by app) is the ErrorOccurred condition, "(and N more)".
 * 4. Progressive syncs (progressive.ts) when enabled.
 * 5. Write: sorted by name; policy create-update / sync: create or patch (apply.ts); create-only /
 *    create-delete: create the missing ones only. Then, policy sync / create-delete: delete the owned apps
 *    no longer generated (after dropping the resources finalizer of one whose destination is gone). One
 *    app's failure does not stop the others; the first failure by name is the error (reasons
 *    UpdateApplicationError, CreateApplicationError, DeleteApplicationError) and the reconcile is retried.
 * 6. `status.resources` from the owned apps; the `argocd.argoproj.io/application-set-refresh` annotation
 *    removed; ResourcesUpToDate "All applications have been generated successfully" when all were valid.
 * Returns when to reconcile again (ms; 0: on events only): the smallest generator requeue, or 3 min after
 * validation errors.
 */
import { APPLICATION_RESOURCE, finalizersOf, RESOURCES_FINALIZER } from '../../apps/index.js';
import { generateApplications, requeueAfterMs } from '../../apps/appset/index.js';
import type { AppSetCluster, ScmAccess } from '../../apps/appset/index.js';
import { isNotFound } from '../../cluster/index.js';
import type { KubeClient, KubeObject } from '../../cluster/index.js';
import { oneLine } from '../../common/index.js';
import {
  applicationPatch,
  controllerOwner,
  desiredApplication,
  ignoreRules,
  specsEquivalent,
} from './apply.js';
import type { AppSetCondition } from './conditions.js';
import { COND, REASON } from './conditions.js';
import {
  appsToSync,
  buildSteps,
  disableAutomatedSync,
  isRollingSync,
  progressingCondition,
  progressStatuses,
  rolloutConfigCondition,
  stepsOf,
  syncDesiredApplications,
  updateAppStatuses,
} from './progressive.js';
import { APPLICATIONSET_RESOURCE, AppSetStatus, kubeNow } from './status.js';
import { destinationError, effectivePolicy } from './validate.js';
import type { AppSetEvent, AppsSyncPolicy } from './types.js';

type Json = Record<string, unknown>;
const isMap = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export const VALIDATION_REQUEUE_MS = 3 * 60_000;
export const REFRESH_ANNOTATION = 'argocd.argoproj.io/application-set-refresh';

export interface ReconcileDeps {
  client: KubeClient;
  argocdNamespace: string;
  /** The controller's policy ('' = sync) and whether a set's `syncPolicy.applicationsSync` overrides it. */
  policy: AppsSyncPolicy;
  policyOverride: boolean;
  progressiveSyncs: boolean;
  preservedAnnotations: readonly string[];
  preservedLabels: readonly string[];
  maxResources: number;
  appset(namespace: string, name: string): KubeObject | undefined;
  /** Every Application of a namespace as the watch holds it. */
  applications(namespace: string): KubeObject[];
  projectExists(name: string): boolean;
  /** The clusters (cluster Secrets and in-cluster) for generators and destination checks. */
  clusters(): AppSetCluster[];
  inClusterEnabled: boolean;
  /** `fresh`: resolve the revision again (the set carries the refresh annotation). */
  checkout(repoURL: string, revision: string, fresh: boolean): Promise<string>;
  scm?: ((namespace: string) => ScmAccess) | undefined;
  now: () => number;
  emit: (e: AppSetEvent) => void;
}

/** Reconciles one ApplicationSet; resolves to the requeue delay (ms, 0 = none) or rejects (retried). */
export async function reconcileAppSet(d: ReconcileDeps, namespace: string, name: string): Promise<number> {
  const appset = d.appset(namespace, name);
  if (!appset) return 0;
  const key = `${namespace}/${name}`;
  const status = new AppSetStatus(appset, d.client, d.now, (fields) =>
    d.emit({ type: 'appset-status-written', appset: key, fields }),
  );
  const pol = effectivePolicy(appset, d);
  const owned = new Map<string, KubeObject>();
  for (const app of d.applications(namespace))
    if (controllerOwner(app) === name) owned.set(String(app.metadata?.name), app);

  if (appset.metadata?.deletionTimestamp) {
    if (!pol.delete)
      for (const app of owned.values())
        await d.client.patch(
          APPLICATION_RESOURCE,
          namespace,
          String(app.metadata?.name),
          { metadata: { ownerReferences: null } },
          'merge',
        );
    const fins = finalizersOf(appset);
    if (fins.includes(RESOURCES_FINALIZER))
      await d.client.patch(
        APPLICATIONSET_RESOURCE,
        namespace,
        name,
        { metadata: { finalizers: fins.filter((f) => f !== RESOURCES_FINALIZER) } },
        'merge',
      );
    return 0;
  }

  const rolling = isRollingSync(appset as Json);
  const setConditions = (c: AppSetCondition[], generated: boolean): Promise<void> =>
    status.setConditions(c, generated, rolling).catch((err: unknown) => {
      d.emit({ type: 'appset-warning', appset: key, message: `failed to write status: ${oneLine(err)}` });
    });
  const errorCondition = (message: string, reason: string): AppSetCondition => ({
    type: COND.ErrorOccurred,
    message,
    reason,
    status: 'True',
  });

  const gen = await generateApplications(appset, {
    defaultNamespace: d.argocdNamespace,
    clusters: async () => d.clusters(),
    checkout: (url, rev) =>
      d.checkout(url, rev, appset.metadata?.annotations?.[REFRESH_ANNOTATION] !== undefined),
    ...(d.scm ? { scm: d.scm(namespace) } : {}),
  });
  if (gen.error) {
    d.emit({ type: 'appset-error', appset: key, reason: gen.error.reason, message: gen.error.message });
    await setConditions([errorCondition(gen.error.message, gen.error.reason)], false);
    return VALIDATION_REQUEUE_MS;
  }
  const generated = gen.manifests as unknown as Json[];

  // validateGeneratedApplications
  const errors = new Map<string, string>();
  const names = new Set<string>();
  const nameOf = (a: Json): string => String((a['metadata'] as Json | undefined)?.['name'] ?? '');
  const qualified = (a: Json): string => `${namespace}/${nameOf(a)}`;
  for (const app of generated) {
    const n = nameOf(app);
    const spec = isMap(app['spec']) ? app['spec'] : {};
    if (!n)
      errors.set(
        qualified(app),
        `ApplicationSet ${name} contains an application with no name; a name must be set in the template's metadata.name or via a templatePatch (generateName is not supported)`,
      );
    else if (names.has(n))
      errors.set(qualified(app), `ApplicationSet ${name} contains applications with duplicate name: ${n}`);
    else {
      names.add(n);
      const project = typeof spec['project'] === 'string' ? spec['project'] : '';
      const dest = destinationError(spec['destination'], d);
      if (!d.projectExists(project))
        errors.set(qualified(app), `application references project ${project} which does not exist`);
      else if (dest) errors.set(qualified(app), `application destination spec is invalid: ${dest}`);
    }
  }

  let toSync = new Set<string>();
  const statusAtStart = status.applicationStatus();
  if (d.progressiveSyncs && rolling) {
    if (stepsOf(appset as Json).length === 0) {
      await setConditions(
        [errorCondition('No steps defined for rollout', REASON.ApplicationSetRolloutError)],
        true,
      );
      return VALIDATION_REQUEUE_MS;
    }
    const rules = ignoreRules(appset);
    const { steps, stepOf, issues } = buildSteps(appset as Json, generated);
    const byName = new Map(generated.map((a) => [nameOf(a), a]));
    const nowIso = kubeNow(d.now());
    const current = [...owned.values()] as unknown as Json[];
    const updated = updateAppStatuses(
      status.applicationStatus(),
      current,
      stepOf,
      (n) => {
        const want = byName.get(n);
        if (!want) return false;
        const copy = structuredClone(want);
        disableAutomatedSync(copy);
        return !specsEquivalent(owned.get(n)!, copy as KubeObject, rules);
      },
      nowIso,
    );
    await status.setApplicationStatus(updated);
    toSync = appsToSync(status.applicationStatus(), steps, new Set(owned.keys()));
    await status.setApplicationStatus(
      progressStatuses(appset as Json, status.applicationStatus(), toSync, stepOf, issues, nowIso),
    );
    await setConditions(
      [rolloutConfigCondition(issues), progressingCondition(appset as Json, status.applicationStatus())],
      true,
    );
  } else if (status.applicationStatus().length > 0) {
    // Not (or no longer) a RollingSync set, or progressive syncs off: the entries are cleared.
    await status.setApplicationStatus([]);
  }

  if (errors.size > 0) {
    const sorted = [...errors.keys()].sort();
    let message = errors.get(sorted.at(-1)!)!;
    if (errors.size > 1) message = `${message} (and ${errors.size - 1} more)`;
    for (const [app, why] of errors)
      d.emit({
        type: 'appset-error',
        appset: key,
        app,
        reason: REASON.ApplicationValidationError,
        message: why,
      });
    await setConditions([errorCondition(message, REASON.ApplicationValidationError)], true);
  }

  let valid = generated.filter((a) => !errors.has(qualified(a)));
  if (d.progressiveSyncs && rolling) syncDesiredApplications(valid, toSync, statusAtStart);
  valid = [...valid].sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0));

  const failures = new Map<string, unknown>();
  const firstFailure = (): unknown => failures.get([...failures.keys()].sort()[0]!);
  const rules = ignoreRules(appset);
  const write = async (app: Json): Promise<void> => {
    const n = nameOf(app);
    const found = owned.get(n) ?? d.applications(namespace).find((a) => a.metadata?.name === n);
    try {
      const desired = desiredApplication(found, app as KubeObject, {
        appset,
        preservedAnnotations: preservedOf(appset, 'annotations', d.preservedAnnotations),
        preservedLabels: preservedOf(appset, 'labels', d.preservedLabels),
      });
      if (!found) {
        const created = await d.client.create(APPLICATION_RESOURCE, desired);
        owned.set(n, created);
        d.emit({ type: 'appset-application', appset: key, app: n, action: 'created' });
        return;
      }
      const patch = applicationPatch(found, desired, rules);
      if (!patch) return;
      const updated = await d.client.patch(APPLICATION_RESOURCE, namespace, n, patch, 'merge');
      owned.set(n, updated);
      d.emit({ type: 'appset-application', appset: key, app: n, action: 'updated' });
    } catch (err) {
      failures.set(n, err);
      d.emit({ type: 'appset-error', appset: key, app: n, reason: 'write', message: oneLine(err) });
    }
  };
  const writes = pol.update ? valid : valid.filter((a) => !owned.has(nameOf(a)));
  for (const app of writes) await write(app);
  if (failures.size > 0) {
    const err = firstFailure();
    await setConditions(
      [
        errorCondition(
          messageOf(err),
          pol.update ? REASON.UpdateApplicationError : REASON.CreateApplicationError,
        ),
      ],
      true,
    );
    throw err;
  }

  if (pol.delete) {
    const keep = new Set(generated.map(nameOf));
    for (const [n, app] of [...owned]) {
      if (keep.has(n)) continue;
      try {
        let fins = finalizersOf(app);
        const spec = (app as Json)['spec'] as Json | undefined;
        if (fins.includes(RESOURCES_FINALIZER) && destinationError(spec?.['destination'], d) !== undefined) {
          fins = fins.filter((f) => f !== RESOURCES_FINALIZER);
          await d.client.patch(
            APPLICATION_RESOURCE,
            namespace,
            n,
            { metadata: { finalizers: fins } },
            'merge',
          );
        }
        await d.client.delete(APPLICATION_RESOURCE, namespace, n);
        // One held by a finalizer still exists, and stays in `status.resources` until it is gone (Argo CD
        // lists the current Applications again after its deletes); its removal queues the set again.
        if (fins.length === 0) owned.delete(n);
        d.emit({ type: 'appset-application', appset: key, app: n, action: 'deleted' });
      } catch (err) {
        if (isNotFound(err)) {
          owned.delete(n);
          continue;
        }
        failures.set(n, err);
        d.emit({ type: 'appset-error', appset: key, app: n, reason: 'delete', message: oneLine(err) });
      }
    }
    if (failures.size > 0) {
      const err = firstFailure();
      await setConditions([errorCondition(messageOf(err), REASON.DeleteApplicationError)], true);
      throw err;
    }
  }

  await status.setResources([...owned.values()], d.maxResources);

  if (appset.metadata?.annotations?.[REFRESH_ANNOTATION] !== undefined) {
    try {
      await d.client.patch(
        APPLICATIONSET_RESOURCE,
        namespace,
        name,
        { metadata: { annotations: { [REFRESH_ANNOTATION]: null } } },
        'merge',
      );
    } catch (err) {
      await setConditions([errorCondition(messageOf(err), REASON.RefreshApplicationError)], true);
      throw err;
    }
  }

  let requeue = 0;
  const spec = (appset as Json)['spec'] as Json | undefined;
  for (const g of Array.isArray(spec?.['generators']) ? spec['generators'] : []) {
    const t = requeueAfterMs(g);
    if (requeue === 0 || (t !== 0 && t < requeue)) requeue = t;
  }
  if (errors.size === 0)
    await setConditions(
      [
        {
          type: COND.ResourcesUpToDate,
          message: 'All applications have been generated successfully',
          reason: REASON.ApplicationSetUpToDate,
          status: 'True',
        },
      ],
      true,
    );
  else if (requeue === 0) requeue = VALIDATION_REQUEUE_MS;
  d.emit({ type: 'appset-reconciled', appset: key, applications: owned.size, requeueMs: requeue });
  return requeue;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The set's `preservedFields.<kind>` and the controller's global list. */
function preservedOf(
  appset: KubeObject,
  kind: 'annotations' | 'labels',
  global: readonly string[],
): string[] {
  const spec = (appset as Json)['spec'] as Json | undefined;
  const pf = isMap(spec?.['preservedFields']) ? (spec['preservedFields'] as Json) : {};
  const own = Array.isArray(pf[kind]) ? pf[kind].map(String) : [];
  return [...own, ...global];
}
