/**
 * What kube-apiserver itself writes into a Pod's status, and the rule it keeps on it
 * (pkg/registry/core/pod/strategy.go, pkg/apis/core/helper/qos/qos.go, ValidatePodStatusUpdate):
 * - on create, the status is `{phase: Pending, qosClass}`, the QoS class computed from the Pod's resources
 *   (`ComputePodQOS`: cpu and memory only, zero quantities ignored; BestEffort with no request or limit;
 *   Guaranteed when every container limits both and the summed requests equal the summed limits; else
 *   Burstable; pod-level `spec.resources` instead of the containers' when set);
 * - a status write without `qosClass` keeps the stored one (the status strategy backfills it), and one that
 *   changes it is 422 `status.qosClass: Invalid value: "<new>": field is immutable`.
 */
import { parseQuantity } from '../schema/index.js';
import type { StatusCause } from './errors.js';
import type { Json, JsonMap, KObject } from './types.js';
import { isMap } from './types.js';

type QosClass = 'Guaranteed' | 'Burstable' | 'BestEffort';
const QOS_RESOURCES = ['cpu', 'memory'];

/** A quantity as mantissa * 10^-9 (nano units: parseQuantity rounds to that precision). */
function nanos(v: Json | undefined): bigint {
  const q = typeof v === 'string' || typeof v === 'number' ? parseQuantity(v) : undefined;
  if (!q) return 0n;
  const scaled = q.exp >= -9 ? q.mantissa * 10n ** BigInt(q.exp + 9) : q.mantissa;
  return q.negative ? -scaled : scaled;
}

/** Adds the positive cpu/memory quantities of `list` into `sum`; returns the names found. */
function add(sum: Map<string, bigint>, list: Json | undefined): Set<string> {
  const found = new Set<string>();
  if (!isMap(list)) return found;
  for (const name of QOS_RESOURCES) {
    const n = nanos(list[name]);
    if (n <= 0n) continue;
    found.add(name);
    sum.set(name, (sum.get(name) ?? 0n) + n);
  }
  return found;
}

/** `ComputePodQOS` of the Pod spec (after defaulting: a container's requests default to its limits). */
export function podQosClass(spec: Json | undefined): QosClass {
  const requests = new Map<string, bigint>();
  const limits = new Map<string, bigint>();
  let guaranteed = true;
  const s: JsonMap = isMap(spec) ? spec : {};
  const podLevel = s['resources'];
  const limitsBoth = (found: Set<string>): boolean => QOS_RESOURCES.every((r) => found.has(r));
  if (isMap(podLevel)) {
    add(requests, podLevel['requests']);
    if (isMap(podLevel['limits']) && Object.keys(podLevel['limits']).length > 0)
      guaranteed = limitsBoth(add(limits, podLevel['limits']));
  } else {
    const containers = [s['containers'], s['initContainers']].flatMap((l) => (Array.isArray(l) ? l : []));
    for (const c of containers) {
      const r = isMap(c) && isMap(c['resources']) ? c['resources'] : {};
      const lim = isMap(r['limits']) ? r['limits'] : {};
      // Defaulting: a limit without its request gives the request.
      add(requests, { ...lim, ...(isMap(r['requests']) ? r['requests'] : {}) });
      if (!limitsBoth(add(limits, lim))) guaranteed = false;
    }
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed && [...requests].every(([name, req]) => limits.get(name) === req))
    return requests.size === limits.size ? 'Guaranteed' : 'Burstable';
  return 'Burstable';
}

/** The status kube-apiserver gives a Pod it creates. */
export function createdPodStatus(pod: KObject): JsonMap {
  return { phase: 'Pending', qosClass: podQosClass(pod['spec'] as Json) };
}

/** A status write: `qosClass` kept when left out (the status strategy's backfill). */
export function backfillPodStatus(pod: KObject, old: KObject): void {
  const status = pod['status'];
  const qos = isMap(old['status']) ? old['status']['qosClass'] : undefined;
  if (isMap(status) && (status['qosClass'] ?? '') === '' && qos !== undefined) status['qosClass'] = qos;
}

/** `status.qosClass` is immutable (ValidatePodStatusUpdate). */
export function podStatusCauses(pod: KObject, old: KObject): StatusCause[] {
  const of = (o: KObject): Json => (isMap(o['status']) ? (o['status']['qosClass'] ?? '') : '');
  const value = of(pod);
  if (value === of(old)) return [];
  return [
    {
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(value)}: field is immutable`,
      field: 'status.qosClass',
    },
  ];
}
