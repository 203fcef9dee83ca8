/**
 * App selection: name arguments and a Kubernetes label selector (`-l/--selector`) on the Application's labels.
 *
 * Selector syntax (as kubectl): comma-separated requirements, all must hold: `k=v`, `k==v`, `k!=v`, `k`
 * (exists), `!k` (absent), `k in (a,b)`, `k notin (a,b)`. A name argument matches `metadata.name` or
 * `<namespace>/<name>`; a name that matches nothing is a UsageError listing the known names. Order of the
 * result = order of loading (never the order of the arguments), each app once.
 */
import { UsageError } from '../common/index.js';
import type { Application } from './types.js';

type Requirement = (labels: Record<string, string>) => boolean;

/** Parses a label selector into one predicate; a malformed selector is a UsageError. */
export function parseSelector(selector: string): Requirement {
  const reqs: Requirement[] = [];
  // Split on commas outside parentheses.
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of selector) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  const bad = (part: string): never => {
    throw new UsageError(`failed to parse label selector: invalid requirement "${part.trim()}"`, {
      subject: '--selector',
    });
  };
  const key = /^[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?$/;
  for (const raw of parts) {
    const part = raw.trim();
    if (!part) {
      if (parts.length > 1) bad(raw);
      continue;
    }
    let m: RegExpExecArray | null;
    if ((m = /^(\S+?)\s*(==|!=|=)\s*(\S*)$/.exec(part))) {
      const [, k, op, v] = m as unknown as [string, string, string, string];
      if (!key.test(k)) bad(part);
      reqs.push(op === '!=' ? (l) => l[k] !== v : (l) => l[k] === v);
    } else if ((m = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(part))) {
      const [, k, op, list] = m as unknown as [string, string, string, string];
      if (!key.test(k)) bad(part);
      const values = new Set(list.split(',').map((v) => v.trim()));
      reqs.push(
        op === 'in' ? (l) => l[k] !== undefined && values.has(l[k]) : (l) => !values.has(l[k] ?? '\0'),
      );
    } else if ((m = /^!\s*(\S+)$/.exec(part))) {
      const k = m[1]!;
      if (!key.test(k)) bad(part);
      reqs.push((l) => !(k in l));
    } else if (key.test(part)) {
      reqs.push((l) => part in l);
    } else bad(part);
  }
  return (labels) => reqs.every((r) => r(labels));
}

export interface SelectOptions {
  names?: readonly string[];
  selector?: string;
}

export function selectApplications(apps: readonly Application[], options: SelectOptions): Application[] {
  let out = [...apps];
  const names = options.names ?? [];
  if (names.length > 0) {
    for (const name of names) {
      if (!apps.some((a) => matchesName(a, name))) {
        const known = apps.map((a) => a.name).join(', ') || 'none';
        throw new UsageError(`failed to select: no such Application (known: ${known})`, {
          subject: `app "${name}"`,
        });
      }
    }
    out = out.filter((a) => names.some((n) => matchesName(a, n)));
  }
  if (options.selector !== undefined) {
    const matches = parseSelector(options.selector);
    out = out.filter((a) => matches(a.labels));
  }
  return out;
}

/** A name argument names `app`: its `metadata.name` or `<namespace>/<name>`. */
export function matchesName(app: Application, name: string): boolean {
  return app.name === name || (app.namespace !== undefined && `${app.namespace}/${app.name}` === name);
}
