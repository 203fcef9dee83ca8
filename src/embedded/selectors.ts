/**
 * Label and field selectors with the real server's grammar.
 *
 * Label selectors: comma-separated requirements, all of which must hold: `k=v`, `k==v`, `k!=v`,
 * `k in (a,b)`, `k notin (a,b)`, `k` (exists), `!k` (does not exist), `k>n`, `k<n`. `!=` and `notin` also
 * match objects without the label, as in apimachinery. Field selectors: `f=v`, `f==v`, `f!=v` over the field
 * labels the kind supports (`metadata.name`, `metadata.namespace` for every kind, plus a few kind-specific
 * ones); an unsupported field is a 400 BadRequest.
 */
import { badRequest } from './errors.js';
import type { KObject } from './types.js';
import { isMap } from './types.js';

type Op = '=' | '!=' | 'in' | 'notin' | 'exists' | '!' | '>' | '<';

interface Requirement {
  key: string;
  op: Op;
  values: string[];
}

export type Selector = (obj: KObject) => boolean;

export const matchAll: Selector = () => true;

/** Splits on commas that are not inside parentheses. */
function splitTerms(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out.map((t) => t.trim()).filter((t) => t !== '');
}

function parseRequirement(term: string): Requirement {
  let m = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(term);
  if (m) {
    const values = m[3]!.split(',').map((v) => v.trim());
    return { key: m[1]!, op: m[2] as Op, values };
  }
  m = /^([^=!<>\s]+)\s*(==|=|!=|>|<)\s*([^=!<>\s]*)$/.exec(term);
  if (m) return { key: m[1]!, op: m[2] === '==' ? '=' : (m[2] as Op), values: [m[3]!] };
  m = /^!\s*([^=!<>\s]+)$/.exec(term);
  if (m) return { key: m[1]!, op: '!', values: [] };
  m = /^([^=!<>\s(),]+)$/.exec(term);
  if (m) return { key: m[1]!, op: 'exists', values: [] };
  throw badRequest(`unable to parse requirement: ${JSON.stringify(term)}`);
}

function test(req: Requirement, has: boolean, value: string | undefined): boolean {
  switch (req.op) {
    case '=':
      return has && value === req.values[0];
    case '!=':
      return !has || value !== req.values[0];
    case 'in':
      return has && req.values.includes(value ?? '');
    case 'notin':
      return !has || !req.values.includes(value ?? '');
    case 'exists':
      return has;
    case '!':
      return !has;
    case '>':
    case '<': {
      const n = Number(value);
      const bound = Number(req.values[0]);
      if (!has || Number.isNaN(n) || Number.isNaN(bound)) return false;
      return req.op === '>' ? n > bound : n < bound;
    }
  }
}

export function parseLabelSelector(s: string | null | undefined): Selector {
  if (!s) return matchAll;
  const reqs = splitTerms(s).map(parseRequirement);
  return (obj) => {
    const labels = obj.metadata.labels ?? {};
    return reqs.every((r) => test(r, Object.hasOwn(labels, r.key), labels[r.key]));
  };
}

/** Field labels each kind supports beyond metadata.name / metadata.namespace (apiserver field selectors). */
const FIELD_LABELS: Record<string, string[]> = {
  Pod: [
    'spec.nodeName',
    'spec.restartPolicy',
    'spec.schedulerName',
    'spec.serviceAccountName',
    'status.phase',
    'status.podIP',
  ],
  Secret: ['type'],
  Event: [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
  ],
  Namespace: ['status.phase'],
  Job: ['status.successful'],
  ReplicaSet: ['status.replicas'],
};

function fieldValue(obj: KObject, path: string): string {
  let cur: unknown = obj;
  for (const part of path.split('.')) cur = isMap(cur) ? cur[part] : undefined;
  return cur === undefined || cur === null ? '' : String(cur);
}

export function parseFieldSelector(s: string | null | undefined, kind: string): Selector {
  if (!s) return matchAll;
  const allowed = ['metadata.name', 'metadata.namespace', ...(FIELD_LABELS[kind] ?? [])];
  const reqs = splitTerms(s).map((term) => {
    const m = /^([^=!\s]+)\s*(==|=|!=)\s*(.*)$/.exec(term);
    if (!m) throw badRequest(`invalid selector: '${s}'; can't understand '${term}'`);
    const key = m[1]!;
    if (!allowed.includes(key)) throw badRequest(`field label not supported: ${key}`);
    return { key, neg: m[2] === '!=', value: m[3]!.trim() };
  });
  return (obj) => reqs.every((r) => (fieldValue(obj, r.key) === r.value) !== r.neg);
}
