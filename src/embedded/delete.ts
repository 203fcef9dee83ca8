// Over 400 lines: one pipeline, deletion (objects, collections, GC, finalizers, namespaces), whose steps call each other.
/**
 * Deletion: single objects, collections, garbage collection through ownerReferences, finalizers and
 * namespace termination.
 *
 * Guarantees:
 * - An object with finalizers is not removed: it gets `deletionTimestamp` (and a MODIFIED event) and is
 *   removed by the write that clears its last finalizer.
 * - propagationPolicy Background (the default) removes the object, then deletes its dependents (objects
 *   whose ownerReferences name its uid), recursively. Foreground answers with the object terminating and
 *   carrying the `foregroundDeletion` finalizer; the collector (after the response) deletes the dependents,
 *   waits for any held by finalizers, then removes the owner. Orphan answers with the `orphan` finalizer;
 *   the collector strips the ownerReference from dependents, then removes the owner.
 * - Deleting a namespace marks it Terminating (deletionTimestamp, status.phase; spec.finalizers keeps
 *   `kubernetes`) and answers 200 with it; `namespaceDeletionDelayMs` later (default 2 s) the namespace
 *   controller (namespace-controller.ts) deletes everything in it and removes it once empty. Until it is
 *   gone, creates in it are refused (403 Forbidden, cause NamespaceTerminating, the NamespaceLifecycle
 *   admission plugin's answer).
 * - A CustomResourceDefinition carries the `customresourcecleanup.apiextensions.k8s.io` finalizer: deleting
 *   it marks it Terminating, its custom resources are deleted, then it goes and its kind stops being
 *   served (its paths then answer 404 like any unknown resource).
 * - `dryRun=All` returns the would-be result and changes nothing.
 */
import type { ApiCore, RequestContext, Result } from './api.js';
import { NAMESPACES } from './api.js';
import { ApiError, badRequest, conflict } from './errors.js';
import { now } from './managed-fields.js';
import { NamespaceController } from './namespace-controller.js';
import { CRD_GROUP, CRD_PLURAL } from './resources.js';
import type { JsonMap, KObject, ResourceType } from './types.js';
import { clone, isMap, typeKey } from './types.js';

type Policy = 'Orphan' | 'Background' | 'Foreground';

/** The garbage collector's finalizers (metav1.FinalizerDeleteDependents, FinalizerOrphanDependents). */
const FOREGROUND = 'foregroundDeletion';
const ORPHAN = 'orphan';
/** The finalizer every CRD carries until its custom resources are gone. */
export const CRD_CLEANUP = 'customresourcecleanup.apiextensions.k8s.io';
/** How soon the collector looks again at an owner whose dependents are held by their own finalizers. */
const GC_RETRY_MS = 20;

/** Namespaces the real server refuses to delete. */
const PROTECTED_NAMESPACES = new Set(['default', 'kube-system', 'kube-public']);

interface DeleteOptions {
  policy: Policy;
  dryRun: boolean;
  preconditions: { uid?: string; resourceVersion?: string };
}

function parseOptions(ctx: RequestContext, raw: string): DeleteOptions {
  let body: JsonMap = {};
  if (raw.trim()) {
    try {
      const parsed: unknown = JSON.parse(raw);
      if (isMap(parsed)) body = parsed;
    } catch {
      throw badRequest('the body of the request was in an unknown format');
    }
  }
  const q = ctx.query;
  const bodyDry = Array.isArray(body['dryRun']) ? body['dryRun'].map(String) : [];
  const dry = [...q.getAll('dryRun'), ...bodyDry];
  if (dry.some((d) => d !== 'All')) throw badRequest(`Invalid dry run value: ${dry.join(',')}`);
  const orphan = body['orphanDependents'] === true || q.get('orphanDependents') === 'true';
  const policy = String(
    body['propagationPolicy'] ?? q.get('propagationPolicy') ?? (orphan ? 'Orphan' : 'Background'),
  );
  if (policy !== 'Orphan' && policy !== 'Background' && policy !== 'Foreground') {
    throw badRequest(
      `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"`,
    );
  }
  const pre = isMap(body['preconditions']) ? body['preconditions'] : {};
  return {
    policy,
    dryRun: dry.length > 0,
    preconditions: {
      ...(typeof pre['uid'] === 'string' ? { uid: pre['uid'] } : {}),
      ...(typeof pre['resourceVersion'] === 'string' ? { resourceVersion: pre['resourceVersion'] } : {}),
    },
  };
}

function success(t: ResourceType, obj: KObject): JsonMap {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { name: obj.metadata.name ?? '', group: t.group, kind: t.plural, uid: obj.metadata.uid ?? '' },
  };
}

export interface DeleterOptions {
  /** Delay before a terminating namespace's contents are deleted (default 2 s; 0: at once, after the response). */
  namespaceDeletionDelayMs?: number;
}

export class Deleter {
  /** Namespaces being emptied in bulk (their removal check is deferred to the end). */
  private bulk = new Set<string>();
  /** kube-controller-manager's namespace controller: empties and removes terminating namespaces. */
  readonly namespaces: NamespaceController;

  constructor(
    private readonly core: ApiCore,
    options: DeleterOptions = {},
  ) {
    this.namespaces = new NamespaceController({
      store: core.store,
      typeOf: (tkey) => this.typeOf(tkey),
      deleteContents: (name) => this.deleteContents(name),
      ...(options.namespaceDeletionDelayMs !== undefined
        ? { delayMs: options.namespaceDeletionDelayMs }
        : {}),
    });
    core.afterWrite = (t, obj) => {
      if (obj.metadata.deletionTimestamp && !obj.metadata.finalizers?.length && typeKey(t) !== NAMESPACES) {
        this.remove(t, obj, 'Background');
      }
    };
  }

  private get store() {
    return this.core.store;
  }

  private typeOf(tkey: string): ResourceType | undefined {
    return this.core.registry.all().find((t) => typeKey(t) === tkey);
  }

  delete(ctx: RequestContext, raw: string): Result {
    const opts = parseOptions(ctx, raw);
    const t = ctx.type;
    const name = ctx.name ?? '';
    const obj = this.store.get(typeKey(t), ctx.namespace, name);
    if (!obj)
      throw new ApiError(
        404,
        'NotFound',
        `${t.group ? `${t.plural}.${t.group}` : t.plural} "${name}" not found`,
        { name, group: t.group, kind: t.plural },
      );
    const { uid, resourceVersion } = opts.preconditions;
    if (uid && uid !== obj.metadata.uid) {
      throw conflict(
        t,
        name,
        `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${obj.metadata.uid ?? ''}`,
      );
    }
    if (resourceVersion && resourceVersion !== obj.metadata.resourceVersion) {
      throw conflict(
        t,
        name,
        `Precondition failed: ResourceVersion in precondition: ${resourceVersion}, ResourceVersion in object meta: ${obj.metadata.resourceVersion ?? ''}`,
      );
    }
    if (typeKey(t) === NAMESPACES && PROTECTED_NAMESPACES.has(name)) {
      throw new ApiError(
        403,
        'Forbidden',
        `namespaces "${name}" is forbidden: this namespace may not be deleted`,
        {
          name,
          kind: 'namespaces',
        },
      );
    }
    if (typeKey(t) === NAMESPACES)
      return { code: 200, body: this.core.render(this.deleteNamespace(obj, opts.dryRun), t, ctx.version) };
    if (t.group === CRD_GROUP && t.plural === CRD_PLURAL && !obj.metadata.deletionTimestamp) {
      return { code: 200, body: this.core.render(this.deleteCrd(t, obj, opts.dryRun), t, ctx.version) };
    }
    const out = this.deleteOne(t, obj, opts.policy, opts.dryRun);
    return { code: 200, body: out ? this.core.render(out, t, ctx.version) : success(t, obj) };
  }

  deleteCollection(ctx: RequestContext, raw: string): Result {
    const opts = parseOptions(ctx, raw);
    const t = ctx.type;
    const items: KObject[] = [];
    for (const obj of this.core.select(ctx)) {
      const current = this.store.get(typeKey(t), obj.metadata.namespace, obj.metadata.name ?? '');
      if (!current) continue;
      items.push(this.deleteOne(t, current, opts.policy, opts.dryRun) ?? current);
    }
    return {
      code: 200,
      body: {
        kind: t.listKind,
        apiVersion: ctx.type.group ? `${t.group}/${ctx.version}` : ctx.version,
        metadata: { resourceVersion: String(this.store.resourceVersion) },
        items,
      },
    };
  }

  /**
   * Deletes (or marks for deletion) one object; returns the object when it remains. Foreground and Orphan
   * deletions add the garbage collector's finalizer (`foregroundDeletion`, `orphan`) and return the
   * terminating object, as the real registry does; the collector's work then runs after the response.
   */
  private deleteOne(t: ResourceType, obj: KObject, policy: Policy, dryRun: boolean): KObject | undefined {
    const gc = policy === 'Foreground' ? FOREGROUND : policy === 'Orphan' ? ORPHAN : undefined;
    const finalizers = obj.metadata.finalizers ?? [];
    if (finalizers.length || gc) {
      if (obj.metadata.deletionTimestamp && (!gc || finalizers.includes(gc))) return obj;
      const marked = clone(obj);
      if (!marked.metadata.deletionTimestamp) {
        marked.metadata.deletionTimestamp = now();
        marked.metadata.deletionGracePeriodSeconds = 0;
        if (t.generation) marked.metadata.generation = (obj.metadata.generation ?? 0) + 1;
      }
      if (gc && !finalizers.includes(gc)) marked.metadata.finalizers = [...finalizers, gc];
      if (dryRun) return marked;
      const stored = this.store.put(typeKey(t), marked);
      if (gc) this.later(() => this.collect(t, stored, gc));
      return stored;
    }
    if (!dryRun) this.remove(t, obj, policy);
    return undefined;
  }

  /**
   * Deleting a CRD (apiextensions registry Delete): deletionTimestamp, the cleanup finalizer and a
   * Terminating condition are set and the CRD is returned; the finalizer controller then runs.
   */
  private deleteCrd(t: ResourceType, crd: KObject, dryRun: boolean): KObject {
    const marked = clone(crd);
    marked.metadata.deletionTimestamp = now();
    const finalizers = marked.metadata.finalizers ?? [];
    if (!finalizers.includes(CRD_CLEANUP)) marked.metadata.finalizers = [...finalizers, CRD_CLEANUP];
    const status = isMap(marked['status']) ? marked['status'] : {};
    const conditions = Array.isArray(status['conditions'])
      ? status['conditions'].filter((c) => !(isMap(c) && c['type'] === 'Terminating'))
      : [];
    conditions.push({
      type: 'Terminating',
      status: 'True',
      reason: 'InstanceDeletionPending',
      message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
      lastTransitionTime: now(),
    });
    marked['status'] = { ...status, conditions };
    if (dryRun) return marked;
    const stored = this.store.put(typeKey(t), marked);
    this.later(() => this.cleanupCrd(stored));
    return stored;
  }

  /** Runs controller work after the current request is answered. */
  private later(fn: () => void): void {
    setImmediate(fn);
  }

  /** Drops one finalizer; the object goes when none is left. */
  private dropFinalizer(t: ResourceType, obj: KObject, finalizer: string): void {
    const current = this.store.get(typeKey(t), obj.metadata.namespace, obj.metadata.name ?? '');
    if (!current || current.metadata.uid !== obj.metadata.uid) return;
    const rest = (current.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    if (rest.length === 0 && current.metadata.deletionTimestamp) {
      this.remove(t, current, 'Background');
      return;
    }
    const copy = clone(current);
    copy.metadata.finalizers = rest;
    this.store.put(typeKey(t), copy);
  }

  /**
   * The garbage collector for an owner being deleted in the foreground (its dependents are deleted, in the
   * foreground too, and the owner goes once none is left) or with orphaning (its dependents lose their
   * ownerReference first).
   */
  private collect(t: ResourceType, owner: KObject, gc: string): void {
    const current = this.store.get(typeKey(t), owner.metadata.namespace, owner.metadata.name ?? '');
    if (!current?.metadata.finalizers?.includes(gc) || current.metadata.uid !== owner.metadata.uid) return;
    const uid = current.metadata.uid ?? '';
    if (gc === ORPHAN) {
      this.orphan(uid);
      this.dropFinalizer(t, current, ORPHAN);
      return;
    }
    // kube-controller-manager's garbage collector (processDeletingDependentsItem): only the dependents
    // whose reference to this owner has blockOwnerDeletion keep it waiting; those not already on their way
    // out are deleted in the foreground; one that another owner still holds loses this reference instead.
    // A dependent already being deleted is left to finish ("being deleted is a one-way trip"). The others
    // go after the owner, as dependents of an owner that is gone (background).
    const blocking = this.dependents(uid).filter(({ obj }) =>
      obj.metadata.ownerReferences?.some((r) => r.uid === uid && r.blockOwnerDeletion === true),
    );
    for (const { t: dt, obj } of blocking) {
      if (obj.metadata.deletionTimestamp) continue;
      if (this.releasedByOtherOwner(dt, obj, uid)) continue;
      this.deleteOne(dt, obj, 'Foreground', false);
    }
    const waiting = blocking.filter(({ t: dt, obj }) =>
      this.store
        .get(typeKey(dt), obj.metadata.namespace, obj.metadata.name ?? '')
        ?.metadata.ownerReferences?.some((r) => r.uid === uid),
    );
    if (waiting.length > 0) setTimeout(() => this.collect(t, current, gc), GC_RETRY_MS);
    else this.dropFinalizer(t, current, FOREGROUND);
  }

  /**
   * A dependent another owner still holds (it exists and is not being deleted) is not deleted with this
   * one: the garbage collector removes its reference to `uid` instead (attemptToDeleteItem, "solid"
   * owners). True when that is what happened.
   */
  private releasedByOtherOwner(t: ResourceType, obj: KObject, uid: string): boolean {
    const others = (obj.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
    if (!others.some((r) => this.isSolidOwner(r.uid))) return false;
    const copy = clone(obj);
    copy.metadata.ownerReferences = others;
    this.store.put(typeKey(t), copy);
    return true;
  }

  private isSolidOwner(uid: string): boolean {
    for (const tkey of this.store.typeKeys())
      for (const o of this.store.each(tkey)) if (o.metadata.uid === uid) return !o.metadata.deletionTimestamp;
    return false;
  }

  /**
   * The CRD finalizer controller (customresourcecleanup.apiextensions.k8s.io): marks the CRD Terminating,
   * deletes every custom resource of it, then releases the CRD, whose kind then stops being served.
   */
  private cleanupCrd(crd: KObject): void {
    const t = this.core.registry.byPlural(CRD_GROUP, 'v1', CRD_PLURAL);
    const served = this.core.registry.all().find((x) => x.crd === crd.metadata.name);
    if (!t) return;
    if (served) {
      for (const cr of this.store.list(typeKey(served))) this.deleteOne(served, cr, 'Background', false);
      if (this.store.list(typeKey(served)).length > 0) {
        setTimeout(() => this.cleanupCrd(crd), GC_RETRY_MS);
        return;
      }
    }
    this.dropFinalizer(t, crd, CRD_CLEANUP);
  }

  /** Removes an object now, then applies the propagation policy to its dependents. */
  private remove(t: ResourceType, obj: KObject, policy: Policy): void {
    const uid = obj.metadata.uid;
    if (policy === 'Foreground' && uid) this.cascade(uid, policy);
    if (!this.store.remove(typeKey(t), obj.metadata.namespace, obj.metadata.name ?? '')) return;
    if (t.group === CRD_GROUP && t.plural === CRD_PLURAL) {
      const served = this.core.registry.unregisterCrd(obj.metadata.name ?? '');
      if (served)
        for (const cr of this.store.list(typeKey(served)))
          this.store.remove(typeKey(served), cr.metadata.namespace, cr.metadata.name ?? '');
    }
    if (uid && policy === 'Background') this.cascade(uid, policy);
    if (uid && policy === 'Orphan') this.orphan(uid);
    const ns = obj.metadata.namespace;
    if (ns && !this.bulk.has(ns)) this.namespaces.contentRemoved(ns);
  }

  private dependents(uid: string): Array<{ t: ResourceType; obj: KObject }> {
    const out: Array<{ t: ResourceType; obj: KObject }> = [];
    for (const tkey of this.store.typeKeys()) {
      const t = this.typeOf(tkey);
      if (!t) continue;
      for (const obj of this.store.each(tkey)) {
        if (obj.metadata.ownerReferences?.some((r) => r.uid === uid)) out.push({ t, obj });
      }
    }
    return out;
  }

  private cascade(uid: string, policy: Policy): void {
    for (const { t, obj } of this.dependents(uid)) {
      const current = this.store.get(typeKey(t), obj.metadata.namespace, obj.metadata.name ?? '');
      if (current && !this.releasedByOtherOwner(t, current, uid)) this.deleteOne(t, current, policy, false);
    }
  }

  private orphan(uid: string): void {
    for (const { t, obj } of this.dependents(uid)) {
      const copy = clone(obj);
      copy.metadata.ownerReferences = (copy.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
      if (copy.metadata.ownerReferences.length === 0) delete copy.metadata.ownerReferences;
      this.store.put(typeKey(t), copy);
    }
  }

  private deleteNamespace(ns: KObject, dryRun: boolean): KObject {
    if (ns.metadata.deletionTimestamp) return ns;
    const marked = clone(ns);
    marked.metadata.deletionTimestamp = now();
    marked['status'] = { ...(isMap(marked['status']) ? marked['status'] : {}), phase: 'Terminating' };
    if (dryRun) return marked;
    const stored = this.store.put(NAMESPACES, marked);
    this.namespaces.schedule(ns.metadata.name ?? '');
    return stored;
  }

  /** Deletes every object in a namespace (the namespace controller's content deletion). */
  private deleteContents(name: string): void {
    this.bulk.add(name);
    try {
      for (const t of this.core.registry.all()) {
        if (!t.namespaced) continue;
        for (const obj of this.store.list(typeKey(t), name)) {
          const current = this.store.get(typeKey(t), name, obj.metadata.name ?? '');
          if (current) this.deleteOne(t, current, 'Background', false);
        }
      }
    } finally {
      this.bulk.delete(name);
    }
  }
}
