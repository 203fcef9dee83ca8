// Over 400 lines: one class, ApiCore's write pipeline (create, update, patch, apply share its steps); list, scale and delete live beside it.
/**
 * The API operations (get, list, create, update, patch, apply) over the store, with the real server's
 * write pipeline: identity checks -> status subresource rules -> defaults -> validation -> system metadata
 * (uid, creationTimestamp, generation) -> managedFields -> store. Deletion lives in `delete.ts`.
 *
 * Guarantees:
 * - `metadata.generation` starts at 1 and is bumped only when something other than metadata (and status,
 *   for kinds with a status subresource) changes.
 * - A write that changes nothing (managedFields timestamps aside) is a no-op: no new resourceVersion, no
 *   watch event, as on a real server.
 * - `dryRun=All` runs the whole pipeline and returns the result without storing it.
 * - A stale `metadata.resourceVersion` in an update or patch body is 409 Conflict.
 * - Writing a CustomResourceDefinition (re)registers the kinds it serves once stored.
 */
import { randomUUID } from 'node:crypto';
import { Allocator, applyDefaults, keepAllocated } from './defaults.js';
import {
  ApiError,
  STALE_MESSAGE,
  alreadyExists,
  badRequest,
  conflict,
  notFound,
  notFoundPath,
} from './errors.js';
import type { ApplyResult, TrackOptions } from './managed-fields.js';
import { now, serverSideApply, trackUpdate } from './managed-fields.js';
import { jsonPatch, mergePatch } from './patch.js';
import { strategicMergePatch } from './strategic-merge-patch.js';
import type { ResourceRegistry } from './resources.js';
import { CRD_GROUP, CRD_PLURAL } from './resources.js';
import { parseFieldSelector, parseLabelSelector } from './selectors.js';
import type { ObjectStore } from './store.js';
import type { Json, KObject, ResourceType } from './types.js';
import { apiVersionOf, clone, hasStatus, isMap, qualifiedResource, typeKey } from './types.js';
import { backfillPodStatus, createdPodStatus } from './pod-status.js';
import { checkDecodes, checkPatchDecodes, checkStrategicPatchDecodes, validate } from './validate.js';
import { crdStatus } from './crd.js';
import {
  managerFromUserAgent,
  orderedMetadata,
  randomSuffix,
  stableJson,
  withClientManagedFields,
} from './meta.js';
import type { FieldValidation } from './field-validation.js';
import {
  duplicateFields,
  fieldProblems,
  pruneNonNullableNulls,
  pruneUnknown,
  warningLine,
  writeOptions,
} from './field-validation.js';
import { decodeApplyPatch, strictYamlDecode } from './apply-schema.js';
import { CustomResourceDecoder } from './decode.js';

export interface RequestContext {
  type: ResourceType;
  /** The version in the URL (objects are returned with this apiVersion). */
  version: string;
  namespace?: string;
  name?: string;
  subresource?: string;
  query: URLSearchParams;
  userAgent: string;
}

export interface Result {
  code: number;
  body: unknown;
  /** Extra response headers (`Warning` lines of fieldValidation=Warn). */
  headers?: Record<string, string[]>;
}

type Mode = 'create' | 'update' | 'status';

export const NAMESPACES = '/namespaces';

export class ApiCore {
  private readonly alloc = new Allocator();
  private readonly decoder: CustomResourceDecoder;

  constructor(
    readonly store: ObjectStore,
    readonly registry: ResourceRegistry,
  ) {
    this.decoder = new CustomResourceDecoder(registry);
  }

  /**
   * Returns a stored object as served at `version`. Custom resources are decoded as apiextensions-apiserver
   * reads them from etcd (decode.ts: pruned and defaulted by their CRD's current schemas).
   */
  render(obj: KObject, t: ResourceType, version: string): KObject {
    if (t.crd) return this.decoder.decode(obj, t, version);
    const apiVersion = apiVersionOf(t.group, version);
    return obj.apiVersion === apiVersion ? obj : { ...obj, apiVersion };
  }

  private tkey(ctx: RequestContext): string {
    return typeKey(ctx.type);
  }

  private requireName(ctx: RequestContext): string {
    if (!ctx.name) throw notFoundPath();
    return ctx.name;
  }

  /** The object the request names as a read at its version returns it (404 when absent). */
  current(ctx: RequestContext): KObject {
    const name = this.requireName(ctx);
    const obj = this.store.get(this.tkey(ctx), ctx.namespace, name);
    if (!obj) throw notFound(ctx.type, name);
    return this.render(obj, ctx.type, ctx.version);
  }

  get(ctx: RequestContext): Result {
    return { code: 200, body: this.current(ctx) };
  }

  /** Objects matching the request's namespace and selectors (shared by list, watch and deletecollection). */
  select(ctx: RequestContext): KObject[] {
    const labels = parseLabelSelector(ctx.query.get('labelSelector'));
    const fields = parseFieldSelector(ctx.query.get('fieldSelector'), ctx.type.kind);
    return this.store.list(this.tkey(ctx), ctx.namespace).filter((o) => labels(o) && fields(o));
  }

  private parseBody(raw: string): KObject {
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch (err) {
      throw badRequest(`the body of the request was in an unknown format: ${(err as Error).message}`);
    }
    if (!isMap(body)) throw badRequest('the body of the request must be a JSON object');
    if (!isMap(body['metadata'])) body['metadata'] = {};
    return body as unknown as KObject;
  }

  /** Identity checks shared by every write: kind, apiVersion, namespace and name against the URL. */
  private checkIdentity(ctx: RequestContext, obj: KObject, mode: Mode): void {
    const t = ctx.type;
    const expected = apiVersionOf(t.group, ctx.version);
    obj.apiVersion ??= expected;
    obj.kind ??= t.kind;
    if (obj.kind !== t.kind || obj.apiVersion !== expected) {
      throw badRequest(
        `the API version in the data (${obj.apiVersion}) does not match the expected API version (${expected})`,
      );
    }
    const meta = obj.metadata;
    if (t.namespaced) {
      if (!meta.namespace) meta.namespace = ctx.namespace;
      else if (meta.namespace !== ctx.namespace) {
        throw badRequest(
          'the namespace of the provided object does not match the namespace sent on the request',
        );
      }
    } else delete meta.namespace;
    if (mode !== 'create' && ctx.name && meta.name !== ctx.name) {
      if (!meta.name) meta.name = ctx.name;
      else
        throw badRequest(
          `the name of the object (${meta.name}) does not match the name on the URL (${ctx.name})`,
        );
    }
  }

  /** `name`: the object's, on create (the create handler takes it from the object for admission). */
  private checkNamespace(ctx: RequestContext, creating: boolean, name = ctx.name ?? ''): void {
    if (!ctx.type.namespaced) return;
    const ns = ctx.namespace;
    if (!ns) throw notFoundPath();
    const nsObj = this.store.get(NAMESPACES, undefined, ns);
    if (!nsObj) throw notFound({ group: '', plural: 'namespaces' }, ns);
    if (creating && nsObj.metadata.deletionTimestamp) {
      throw new ApiError(
        403,
        'Forbidden',
        `${qualifiedResource(ctx.type)} "${name}" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`,
        {
          name,
          kind: ctx.type.plural,
          causes: [
            {
              reason: 'NamespaceTerminating',
              message: `namespace ${ns} is being terminated`,
              field: 'metadata.namespace',
            },
          ],
        },
      );
    }
  }

  private trackOptions(ctx: RequestContext): TrackOptions {
    return {
      schemas: this.registry.schemas,
      root: this.registry.schemaOf(ctx.type, ctx.version),
      statusSubresource: hasStatus(ctx.type, ctx.version),
      ...(ctx.subresource === 'status' ? { subresource: 'status' as const } : {}),
    };
  }

  /** The write pipeline. `obj` is a fresh copy the pipeline may change. */
  private finishWrite(
    ctx: RequestContext,
    old: KObject | undefined,
    obj: KObject,
    mode: Mode,
    ssa?: ApplyResult,
  ): KObject {
    const t = ctx.type;
    const status = hasStatus(t, ctx.version);
    this.checkIdentity(ctx, obj, mode);
    checkDecodes(t, ctx.version, obj, this.registry.schemas);
    if (mode === 'status' && old) {
      obj = { ...clone(old), status: obj['status'] as Json };
      if (obj['status'] === undefined) delete obj['status'];
      if (t.group === '' && t.kind === 'Pod') backfillPodStatus(obj, old);
    }
    const meta = obj.metadata;
    delete meta.selfLink;
    // ObjectMeta's collections are `omitempty` and every kind's metadata goes through the typed ObjectMeta
    // (custom resources too: apiextensions-apiserver objectmeta.Coerce): an empty one is not stored.
    for (const k of ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const) {
      const v = meta[k] as unknown;
      if ((isMap(v) && Object.keys(v).length === 0) || (Array.isArray(v) && v.length === 0)) delete meta[k];
    }
    if (!old) {
      if (!meta.name && meta.generateName) meta.name = `${meta.generateName}${randomSuffix()}`;
      meta.uid = randomUUID();
      meta.creationTimestamp = now();
      delete meta.resourceVersion;
      delete meta.deletionTimestamp;
      delete meta.deletionGracePeriodSeconds;
      if (t.generation) meta.generation = 1;
      else delete meta.generation;
      if (status) delete obj['status'];
    } else {
      for (const k of [
        'uid',
        'creationTimestamp',
        'deletionTimestamp',
        'deletionGracePeriodSeconds',
        'generation',
      ] as const) {
        if (old.metadata[k] === undefined) delete meta[k];
        else meta[k] = old.metadata[k] as never;
      }
      if (status && mode !== 'status') {
        if (old['status'] === undefined) delete obj['status'];
        else obj['status'] = old['status'];
      }
    }
    // Defaulting happens at decode, before the field manager runs; allocation (Service clusterIP, IP
    // families, nodePorts) happens in storage, after it: allocated fields belong to no manager.
    applyDefaults(obj, this.registry.schemas);
    if (old) keepAllocated(obj, old);
    else if (t.group === '' && t.kind === 'Pod') obj['status'] = createdPodStatus(obj);
    validate(t, obj, this.registry.schemas, old);
    if (old && t.generation && this.specChanged(status, old, obj))
      meta.generation = (old.metadata.generation ?? 0) + 1;
    if (t.group === CRD_GROUP && t.plural === CRD_PLURAL) crdStatus(obj, old);
    const manager = ctx.query.get('fieldManager') || managerFromUserAgent(ctx.userAgent);
    const base = old ? withClientManagedFields(old, meta.managedFields) : undefined;
    meta.managedFields = ssa
      ? ssa.managedFields(obj)
      : trackUpdate(base, obj, manager, this.trackOptions(ctx));
    if (meta.managedFields.length === 0) delete meta.managedFields;
    if (!old) applyDefaults(obj, this.registry.schemas, this.alloc);
    obj.metadata = orderedMetadata(obj.metadata, t.crd !== undefined);
    return obj;
  }

  private specChanged(statusSubresource: boolean, a: KObject, b: KObject): boolean {
    const strip = (o: KObject): unknown => {
      const { metadata: _m, status, ...rest } = o;
      return statusSubresource ? rest : { ...rest, status };
    };
    return stableJson(strip(a)) !== stableJson(strip(b));
  }

  /**
   * Stores the result of a write (unless dry-run or unchanged) and returns the stored object (callers
   * `render` it). A write is a no-op when it encodes to what storage already holds (etcd3 GuaranteedUpdate
   * compares the bytes), so a custom resource whose stored form still has fields its schema now prunes
   * is written again.
   */
  private store_(ctx: RequestContext, old: KObject | undefined, written: KObject, dryRun: boolean): KObject {
    const obj = CustomResourceDecoder.encode(written, ctx.type);
    const raw = old ? this.store.get(this.tkey(ctx), ctx.namespace, old.metadata.name ?? '') : undefined;
    if (raw && this.unchanged(raw, obj)) return raw;
    if (dryRun) {
      if (old) obj.metadata.resourceVersion = old.metadata.resourceVersion;
      return obj;
    }
    const stored = this.store.put(this.tkey(ctx), obj);
    if (ctx.type.group === CRD_GROUP && ctx.type.plural === CRD_PLURAL) this.registry.registerCrd(stored);
    this.afterWrite?.(ctx.type, stored);
    return stored;
  }

  /** Set by the deleter: finishes deletion of objects whose last finalizer was removed. */
  afterWrite: ((t: ResourceType, obj: KObject) => void) | undefined;

  private unchanged(a: KObject, b: KObject): boolean {
    const norm = (o: KObject): string => {
      const mf = (o.metadata.managedFields ?? []).map((e) => ({ ...e, time: '' }));
      return stableJson({ ...o, metadata: { ...o.metadata, resourceVersion: '', managedFields: mf } });
    };
    return norm(a) === norm(b);
  }

  /** Creates namespaces at start (as a fresh cluster has default, kube-system, ...). */
  bootstrapNamespaces(names: string[]): void {
    const type = this.registry.byPlural('', 'v1', 'namespaces')!;
    for (const name of names) {
      const ctx: RequestContext = {
        type,
        version: 'v1',
        query: new URLSearchParams(),
        userAgent: 'kube-apiserver/v1.32.0',
      };
      this.create(ctx, JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
    }
  }

  /**
   * Unknown fields (not in the kind's schema) are dropped; with duplicate fields of the body they fail the
   * request under fieldValidation=Strict, become Warning headers under Warn, and pass silently under Ignore.
   */
  private checkFields(
    ctx: RequestContext,
    obj: KObject,
    bodyText: string,
    validation: FieldValidation,
    strictPrefix: string,
  ): Record<string, string[]> | undefined {
    const unknown = pruneUnknown(
      obj as unknown as Json,
      this.registry.schemas,
      this.registry.schemaOf(ctx.type, ctx.version),
      '',
      [],
      ctx.type.crd !== undefined,
    );
    if (ctx.type.crd !== undefined)
      pruneNonNullableNulls(
        obj as unknown as Json,
        this.registry.schemas,
        this.registry.schemaOf(ctx.type, ctx.version),
      );
    const problems = fieldProblems(unknown, validation === 'Ignore' ? [] : duplicateFields(bodyText));
    if (problems.length === 0 || validation === 'Ignore') return undefined;
    if (validation === 'Strict')
      throw badRequest(`${strictPrefix}strict decoding error: ${problems.join(', ')}`);
    return { Warning: problems.map(warningLine) };
  }

  private handledAs(ctx: RequestContext): string {
    return `${ctx.type.kind} in version "${ctx.version}" cannot be handled as a ${ctx.type.kind}: `;
  }

  create(ctx: RequestContext, raw: string): Result {
    if (ctx.subresource) throw notFoundPath();
    const { dryRun, validation } = writeOptions(ctx.query, 'CreateOptions');
    const obj = this.parseBody(raw);
    const headers = this.checkFields(ctx, obj, raw, validation, this.handledAs(ctx));
    if (obj.metadata.resourceVersion) {
      throw new ApiError(500, 'InternalError', 'resourceVersion should not be set on objects to be created');
    }
    this.checkNamespace(ctx, true, obj.metadata.name ?? '');
    // The object is validated before storage looks for its name, as kube-apiserver's create
    // (registry/generic/registry/store.go Create: BeforeCreate and validating admission, then
    // Storage.Create answers AlreadyExists): an invalid object is 422 even when its name is taken.
    const result = this.finishWrite(ctx, undefined, obj, 'create');
    const fresh = result.metadata.name ?? '';
    if (this.store.get(this.tkey(ctx), ctx.namespace, fresh)) throw alreadyExists(ctx.type, fresh);
    return {
      code: 201,
      body: this.render(this.store_(ctx, undefined, result, dryRun), ctx.type, ctx.version),
      ...(headers ? { headers } : {}),
    };
  }

  /**
   * The end of PUT and PATCH: a resourceVersion in the new object must match the stored one (optimistic
   * concurrency, 409 otherwise); the write then goes to the main resource or, on /status, to status only.
   */
  private replaceExisting(
    ctx: RequestContext,
    old: KObject,
    obj: KObject,
    dryRun: boolean,
    headers?: Record<string, string[]>,
  ): Result {
    const rv = obj.metadata.resourceVersion;
    if (rv && rv !== old.metadata.resourceVersion)
      throw conflict(ctx.type, old.metadata.name ?? '', STALE_MESSAGE);
    const mode: Mode = ctx.subresource === 'status' ? 'status' : 'update';
    const result = this.finishWrite(ctx, old, obj, mode);
    return {
      code: 200,
      body: this.render(this.store_(ctx, old, result, dryRun), ctx.type, ctx.version),
      ...(headers ? { headers } : {}),
    };
  }

  update(ctx: RequestContext, raw: string): Result {
    const { dryRun, validation } = writeOptions(ctx.query, 'UpdateOptions');
    const old = this.current(ctx);
    const obj = this.parseBody(raw);
    const headers = this.checkFields(ctx, obj, raw, validation, this.handledAs(ctx));
    return this.replaceExisting(ctx, old, obj, dryRun, headers);
  }

  patch(ctx: RequestContext, raw: string, contentType: string): Result {
    const ct = (contentType.split(';')[0] ?? '').trim().toLowerCase();
    if (ct === 'application/apply-patch+yaml') return this.apply(ctx, raw);
    const { dryRun, validation } = writeOptions(ctx.query, 'PatchOptions');
    const old = this.current(ctx);
    let body: Json;
    try {
      body = JSON.parse(raw) as Json;
    } catch (err) {
      throw badRequest(`the body of the request was in an unknown format: ${(err as Error).message}`);
    }
    const base = clone(old) as unknown as Json;
    let patched: Json;
    if (ct === 'application/merge-patch+json') patched = mergePatch(base, body);
    else if (ct === 'application/json-patch+json') patched = jsonPatch(base, body);
    else if (ct === 'application/strategic-merge-patch+json' && ctx.type.strategicMerge)
      patched = strategicMergePatch(
        base,
        body,
        this.registry.schemas,
        this.registry.schemaOf(ctx.type, ctx.version),
      );
    else {
      throw new ApiError(
        415,
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml${ctx.type.strategicMerge ? ', application/strategic-merge-patch+json' : ''}`,
      );
    }
    if (!isMap(patched)) throw badRequest('the patched object is not an object');
    const obj = patched as unknown as KObject;
    if (!isMap(obj.metadata)) obj.metadata = {};
    // The patched object is decoded before anything else looks at it; a failure is the patch's (422).
    if (ct === 'application/strategic-merge-patch+json')
      checkStrategicPatchDecodes(body, obj, this.registry.schemas);
    else checkPatchDecodes(obj, this.registry.schemas);
    // Duplicates are looked for in the patch body (merge patches) and never in a JSON patch's list.
    const dupText = ct === 'application/json-patch+json' ? '' : raw;
    const headers = this.checkFields(ctx, obj, dupText, validation, '');
    return this.replaceExisting(ctx, old, obj, dryRun, headers);
  }

  /** Server-side apply (creates the object when it does not exist). */
  apply(ctx: RequestContext, raw: string): Result {
    // A missing fieldManager is refused here, with the other options' errors (one 422, its causes).
    const { dryRun, validation } = writeOptions(ctx.query, 'PatchOptions', true);
    const manager = ctx.query.get('fieldManager')!;
    const name = this.requireName(ctx);
    const stored = this.store.get(this.tkey(ctx), ctx.namespace, name);
    if (!stored && ctx.subresource) throw notFound(ctx.type, name);
    const old = stored && this.render(stored, ctx.type, ctx.version);
    // What the field manager checks before it merges (apply-schema.ts); YAML duplicates come after.
    const { cfg, duplicates } = decodeApplyPatch(raw, {
      apiVersion: apiVersionOf(ctx.type.group, ctx.version),
      kind: ctx.type.kind,
      schemas: this.registry.schemas,
      root: this.registry.schemaOf(ctx.type, ctx.version),
      custom: ctx.type.crd !== undefined,
    });
    if (!isMap(cfg.metadata)) cfg.metadata = {};
    delete cfg.metadata.managedFields;
    if (cfg.metadata.name !== undefined && cfg.metadata.name !== name) {
      throw badRequest(
        `the name of the object (${cfg.metadata.name}) does not match the name on the URL (${name})`,
      );
    }
    cfg.metadata.name = name;
    this.checkIdentity(ctx, cfg, 'update');
    if (!old) this.checkNamespace(ctx, true);
    const rv = cfg.metadata.resourceVersion;
    if (rv && old && rv !== old.metadata.resourceVersion) throw conflict(ctx.type, name, STALE_MESSAGE);
    delete cfg.metadata.resourceVersion;
    const force = ctx.query.get('force') === 'true';
    const res = serverSideApply(old, cfg, manager, force, this.trackOptions(ctx));
    const headers = strictYamlDecode(duplicates, validation);
    const mode: Mode = !old ? 'create' : ctx.subresource === 'status' ? 'status' : 'update';
    const result = this.finishWrite(ctx, old, res.obj, mode, res);
    return {
      code: old ? 200 : 201,
      body: this.render(this.store_(ctx, old, result, dryRun), ctx.type, ctx.version),
      ...(headers ? { headers } : {}),
    };
  }
}
