/**
 * Transforms applied to every object before the live cache stores it (controller-runtime's TransformFunc):
 * they drop bulk the comparison never reads, so the cache holds less heap.
 *
 * `defaultTransform` removes `metadata.managedFields` (often as large as the object) and nothing else: the
 * `kubectl.kubernetes.io/last-applied-configuration` annotation is kept because the client-side diff reads
 * it. `stripTransform(options)` builds a transform that also drops chosen annotations or top-level fields.
 * A transform may mutate and return its argument (the cache owns freshly parsed objects), or return a new one.
 *
 * Stubs (`stubOf`, `isStub`): what the live cache stores, with `manifests: 'tracked'`, for an object no app
 * tracks (Argo CD's cluster cache keeps the manifest only of objects with an app and of CRDs, and reads any
 * other object with a GET when a target names it: gitops-engine pkg/cache GetManagedLiveObjs). A stub is
 * `apiVersion`, `kind` and `metadata` less `managedFields` and the last-applied annotation: enough for keys,
 * tracking, owner references, finalizers and deletion, not for a comparison or a health check. A stub also
 * keeps what the resource tree's summary reads of it (Argo CD's controller/cache/info.go populateNodeInfo:
 * `status.summary`, src/apps summary.ts), and nothing more:
 * - a Pod (core group): `spec.initContainers[].image` and `spec.containers[].image` (populatePodInfo's
 *   images), each container reduced to its image, one frozen object shared by the Pods with the same
 *   images (`sharedPodSpec`);
 * - an Ingress (networking.k8s.io, extensions): `spec.rules`, `spec.tls` and `status.loadBalancer.ingress`
 *   (populateIngressInfo's URLs: hosts, paths, TLS, the load balancer's host or IP);
 * - a Gateway (gateway.networking.k8s.io): each listener's `hostname`, `protocol` and `port`, and
 *   `status.addresses` (populateGatewayInfo);
 * - a Service needs nothing beyond metadata (Argo CD takes its external URLs from link annotations only).
 */
import type { KubeObject } from './types.js';

/** kubectl's client-side apply annotation (the three-way diff's original). */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

export type Transform = (obj: KubeObject) => KubeObject;

export interface StripOptions {
  /** Drop `metadata.managedFields`. Default true. */
  managedFields?: boolean;
  /** Annotation keys to drop. */
  annotations?: string[];
  /** Top-level fields to drop, e.g. "status" for kinds whose health is never read. */
  fields?: string[];
}

export function stripTransform(options: StripOptions = {}): Transform {
  const managedFields = options.managedFields ?? true;
  const annotations = options.annotations ?? [];
  const fields = options.fields ?? [];
  return (obj) => {
    const meta = obj.metadata;
    if (meta) {
      // Rebuild instead of `delete`: deleting a property that is not the last one added turns a V8 object
      // into a slow dictionary, which costs more heap than the field saved.
      const { managedFields: dropped, ...rest } = meta;
      if (!managedFields && dropped !== undefined) rest.managedFields = dropped;
      if (meta.annotations && annotations.some((a) => a in meta.annotations!)) {
        const kept = { ...meta.annotations };
        for (const a of annotations) delete kept[a];
        rest.annotations = { ...kept };
      }
      obj.metadata = rest;
    }
    if (fields.some((f) => f in obj)) {
      const out: KubeObject = {};
      for (const [k, v] of Object.entries(obj)) if (!fields.includes(k)) out[k] = v;
      return out;
    }
    return obj;
  };
}

export const defaultTransform: Transform = stripTransform();

/** Stores objects as the server sent them. */
export const identityTransform: Transform = (obj) => obj;

const STUBS = new WeakSet<object>();

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Containers reduced to their image (Argo CD reads nothing else of them for the tree's summary). */
function imagesOnly(containers: unknown): { image: unknown }[] | undefined {
  if (!Array.isArray(containers)) return undefined;
  return containers.map((c) => ({ image: isObj(c) ? c['image'] : undefined }));
}

/**
 * The stubs' Pod specs, shared (and frozen) between Pods that run the same images: the Pods of one
 * ReplicaSet, Job or DaemonSet hold one object, not one each (about 480 B per Pod saved). Bounded: when
 * it holds `POD_SPECS_MAX` image sets it starts again (stubs keep the objects they hold).
 */
const POD_SPECS = new Map<string, Obj>();
const POD_SPECS_MAX = 4096;

function sharedPodSpec(spec: Obj): Obj {
  const init = imagesOnly(spec['initContainers']);
  const containers = imagesOnly(spec['containers']);
  const id = JSON.stringify([init, containers]);
  let shared = POD_SPECS.get(id);
  if (!shared) {
    const freeze = (list: { image: unknown }[] | undefined) =>
      list ? Object.freeze(list.map((c) => Object.freeze(c))) : undefined;
    shared = Object.freeze({
      ...(init ? { initContainers: freeze(init) } : {}),
      ...(containers ? { containers: freeze(containers) } : {}),
    });
    if (POD_SPECS.size >= POD_SPECS_MAX) POD_SPECS.clear();
    POD_SPECS.set(id, shared);
  }
  return shared;
}

/** What the tree's summary reads of `obj` beyond its metadata (see the header); undefined: nothing. */
function summaryFields(obj: KubeObject): Obj | undefined {
  const apiVersion = obj.apiVersion ?? '';
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const spec = (obj as Obj)['spec'];
  if (group === '' && obj.kind === 'Pod') {
    return isObj(spec) ? { spec: sharedPodSpec(spec) } : undefined;
  }
  if ((group === 'networking.k8s.io' || group === 'extensions') && obj.kind === 'Ingress') {
    const status = (obj as Obj)['status'];
    const lb = isObj(status) && isObj(status['loadBalancer']) ? status['loadBalancer']['ingress'] : undefined;
    const out: Obj = {};
    if (isObj(spec) && (spec['rules'] !== undefined || spec['tls'] !== undefined))
      out['spec'] = {
        ...(spec['rules'] !== undefined ? { rules: spec['rules'] } : {}),
        ...(spec['tls'] !== undefined ? { tls: spec['tls'] } : {}),
      };
    if (lb !== undefined) out['status'] = { loadBalancer: { ingress: lb } };
    return out;
  }
  if (group === 'gateway.networking.k8s.io' && obj.kind === 'Gateway') {
    const status = (obj as Obj)['status'];
    const addresses = isObj(status) ? status['addresses'] : undefined;
    const listeners = isObj(spec) && Array.isArray(spec['listeners']) ? spec['listeners'] : undefined;
    return {
      ...(listeners
        ? {
            spec: {
              listeners: listeners.map((l) =>
                isObj(l) ? { hostname: l['hostname'], protocol: l['protocol'], port: l['port'] } : {},
              ),
            },
          }
        : {}),
      ...(addresses !== undefined ? { status: { addresses } } : {}),
    };
  }
  return undefined;
}

/**
 * The stub of `obj` (see the header): `apiVersion`, `kind`, and `metadata` without the bulk, plus what the
 * tree's summary reads of Pods and Ingresses.
 */
export function stubOf(obj: KubeObject): KubeObject {
  const { managedFields: _dropped, ...meta } = obj.metadata ?? {};
  if (meta.annotations && LAST_APPLIED in meta.annotations) {
    const { [LAST_APPLIED]: _lastApplied, ...annotations } = meta.annotations;
    meta.annotations = annotations;
  }
  const stub: KubeObject = {
    ...(obj.apiVersion !== undefined ? { apiVersion: obj.apiVersion } : {}),
    ...(obj.kind !== undefined ? { kind: obj.kind } : {}),
    metadata: meta,
    ...summaryFields(obj),
  };
  STUBS.add(stub);
  return stub;
}

/** Whether the live cache holds `obj` as a stub (only its metadata: read the object to compare it). */
export function isStub(obj: KubeObject | undefined): boolean {
  return obj !== undefined && STUBS.has(obj);
}
