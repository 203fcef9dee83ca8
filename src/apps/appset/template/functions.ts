/**
 * The functions of ApplicationSet Go templates (`GO_FUNCTIONS`: Go builtins, the Sprig ones people use,
 * Argo CD's `normalize` and `slugify`) and the Go value helpers they and the generators share: %v
 * printing, truthiness, Go's path.Clean/Dir (the rules: ../template.ts).
 */
import { stringify as yamlStringify } from 'yaml';
import { TemplateError } from './error.js';

/** Argo CD's `utils.SanitizeName` (template `normalize`, `*Normalized` parameters). */
export function sanitizeName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^-a-z0-9.]/g, '-')
    .slice(0, 253)
    .replace(/^[-.]+|[-.]+$/g, '');
}

/** Argo CD's `SlugifyName(maxLength=50, smartTruncate=true, name)` with its defaults. */
function slugify(...args: unknown[]): string {
  const name = String(args.at(-1) ?? '');
  const max = args.length >= 2 ? Number(args[0]) : 50;
  let slug = sanitizeName(name.replace(/[^A-Za-z0-9]+/g, '-'));
  if (slug.length > max) {
    const words = slug.split('-');
    let cut = '';
    for (const w of words) {
      const next = cut ? `${cut}-${w}` : w;
      if (next.length > max) break;
      cut = next;
    }
    slug = cut || slug.slice(0, max);
  }
  return slug;
}

/** How Go's fmt prints a value with %v (what a template action outputs). */
export function goPrint(value: unknown): string {
  if (value === undefined || value === null) return '<no value>';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  if (Array.isArray(value)) return `[${value.map(goPrintInner).join(' ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `map[${entries.map(([k, v]) => `${k}:${goPrintInner(v)}`).join(' ')}]`;
  }
  return String(value);
}

function goPrintInner(value: unknown): string {
  return value === undefined || value === null ? '<nil>' : goPrint(value);
}

export function truthy(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

const str = (v: unknown): string =>
  v === undefined || v === null ? '' : typeof v === 'string' ? v : goPrint(v);
const isEmpty = (v: unknown): boolean => !truthy(v);

function toInt(v: unknown): number {
  const n = typeof v === 'number' ? v : Number(str(v));
  return Number.isFinite(n) ? Math.trunc(n) : 0;
}

function posixBase(p: string): string {
  if (p === '') return '.';
  const t = p.replace(/\/+$/, '');
  if (t === '') return '/';
  return t.slice(t.lastIndexOf('/') + 1);
}

/** Go's path.Clean. */
export function posixClean(p: string): string {
  if (p === '') return '.';
  const rooted = p.startsWith('/');
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length > 0 && out.at(-1) !== '..') out.pop();
      else if (!rooted) out.push('..');
    } else out.push(part);
  }
  const joined = out.join('/');
  return rooted ? `/${joined}` : joined || '.';
}

/** Go's path.Dir. */
export function posixDir(p: string): string {
  const i = p.lastIndexOf('/');
  return posixClean(i < 0 ? '' : p.slice(0, i + 1));
}

function posixExt(p: string): string {
  const base = p.slice(p.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot < 0 ? '' : base.slice(dot);
}

/** Go's %v / %s / %d / %q subset of printf. */
function printf(format: unknown, ...args: unknown[]): string {
  let i = 0;
  return str(format).replace(/%([-+# 0]*\d*(?:\.\d+)?)([vsdqtfx%])/g, (_m, _flags: string, verb: string) => {
    if (verb === '%') return '%';
    const a = args[i++];
    if (verb === 'q') return JSON.stringify(str(a));
    if (verb === 'd') return String(toInt(a));
    if (verb === 'x') return toInt(a).toString(16);
    return goPrint(a);
  });
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = str(a);
  const y = str(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The functions of goTemplate mode: Go's builtins and the Sprig functions ApplicationSets use most, plus
 * Argo CD's `normalize`, `slugify`, `toYaml`. Sprig argument order is kept (`replace old new s`,
 * `trunc n s`, `default d v`: the piped value comes last).
 */
export const GO_FUNCTIONS: Record<string, (...args: unknown[]) => unknown> = {
  // Go builtins
  index: (coll, ...keys) => {
    let cur = coll;
    for (const k of keys) {
      if (cur === undefined || cur === null) throw new TemplateError('index of untyped nil');
      if (Array.isArray(cur)) {
        const i = toInt(k);
        if (i < 0 || i >= cur.length) throw new TemplateError(`index out of range: ${i}`);
        cur = cur[i];
      } else if (typeof cur === 'object') cur = (cur as Record<string, unknown>)[str(k)];
      else throw new TemplateError(`can't index item of type ${typeof cur}`);
    }
    return cur;
  },
  len: (v) =>
    Array.isArray(v)
      ? v.length
      : typeof v === 'string'
        ? v.length
        : v && typeof v === 'object'
          ? Object.keys(v).length
          : 0,
  not: (v) => !truthy(v),
  and: (...args) => args.find((a) => !truthy(a)) ?? args.at(-1),
  or: (...args) => args.find((a) => truthy(a)) ?? args.at(-1),
  eq: (a, ...bs) => bs.some((b) => deepEqual(a, b)),
  ne: (a, b) => !deepEqual(a, b),
  lt: (a, b) => compare(a, b) < 0,
  le: (a, b) => compare(a, b) <= 0,
  gt: (a, b) => compare(a, b) > 0,
  ge: (a, b) => compare(a, b) >= 0,
  print: (...args) => args.map(goPrint).join(''),
  println: (...args) => `${args.map(goPrint).join(' ')}\n`,
  printf,
  // Sprig strings
  default: (d, ...v) => (v.length === 0 || isEmpty(v[0]) ? d : v[0]),
  empty: (v) => isEmpty(v),
  coalesce: (...args) => args.find((a) => truthy(a)),
  ternary: (a, b, cond) => (truthy(cond) ? a : b),
  lower: (s) => str(s).toLowerCase(),
  upper: (s) => str(s).toUpperCase(),
  title: (s) => str(s).replace(/\b\w/g, (c) => c.toUpperCase()),
  trim: (s) => str(s).trim(),
  trimAll: (c, s) => {
    const cls = `[${escapeClass(str(c))}]+`;
    return str(s).replace(new RegExp(`^${cls}|${cls}$`, 'g'), '');
  },
  trimPrefix: (p, s) => (str(s).startsWith(str(p)) ? str(s).slice(str(p).length) : str(s)),
  trimSuffix: (p, s) => (str(p) !== '' && str(s).endsWith(str(p)) ? str(s).slice(0, -str(p).length) : str(s)),
  replace: (o, n, s) => str(s).split(str(o)).join(str(n)),
  trunc: (n, s) => {
    const c = toInt(n);
    const t = str(s);
    return c >= 0 ? t.slice(0, c) : t.slice(Math.max(0, t.length + c));
  },
  contains: (sub, s) => str(s).includes(str(sub)),
  hasPrefix: (p, s) => str(s).startsWith(str(p)),
  hasSuffix: (p, s) => str(s).endsWith(str(p)),
  quote: (...args) => args.map((a) => JSON.stringify(str(a))).join(' '),
  squote: (...args) => args.map((a) => `'${str(a)}'`).join(' '),
  cat: (...args) =>
    args
      .filter((a) => a !== undefined && a !== null)
      .map(goPrint)
      .join(' '),
  repeat: (n, s) => str(s).repeat(Math.max(0, toInt(n))),
  substr: (a, b, s) => str(s).slice(toInt(a), toInt(b) < 0 ? undefined : toInt(b)),
  nospace: (s) => str(s).replace(/\s+/g, ''),
  kebabcase: (s) =>
    str(s)
      .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
      .replace(/[\s_]+/g, '-')
      .toLowerCase(),
  snakecase: (s) =>
    str(s)
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .replace(/[\s-]+/g, '_')
      .toLowerCase(),
  split: (sep, s) =>
    Object.fromEntries(
      str(s)
        .split(str(sep))
        .map((p, i) => [`_${i}`, p]),
    ),
  splitList: (sep, s) => str(s).split(str(sep)),
  join: (sep, list) => (Array.isArray(list) ? list.map(str).join(str(sep)) : str(list)),
  regexMatch: (re, s) => new RegExp(str(re)).test(str(s)),
  regexReplaceAll: (re, s, repl) =>
    str(s).replace(new RegExp(str(re), 'g'), str(repl).replace(/\$\{(\w+)\}/g, '$<$1>')),
  toString: (v: unknown) => str(v),
  atoi: (s) => toInt(s),
  int: (v) => toInt(v),
  int64: (v) => toInt(v),
  add: (...args) => args.reduce<number>((a, b) => a + toInt(b), 0),
  sub: (a, b) => toInt(a) - toInt(b),
  mul: (...args) => args.reduce<number>((a, b) => a * toInt(b), 1),
  // Sprig lists and dicts
  list: (...args) => args,
  first: (l) => (Array.isArray(l) ? l[0] : undefined),
  last: (l) => (Array.isArray(l) ? l.at(-1) : undefined),
  has: (v, l) => Array.isArray(l) && l.some((x) => deepEqual(x, v)),
  dict: (...args) => {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < args.length; i += 2) out[str(args[i])] = args[i + 1];
    return out;
  },
  get: (d, k) => (d && typeof d === 'object' ? ((d as Record<string, unknown>)[str(k)] ?? '') : ''),
  hasKey: (d, k) => Boolean(d && typeof d === 'object' && str(k) in (d as object)),
  keys: (...ds) => ds.flatMap((d) => (d && typeof d === 'object' ? Object.keys(d) : [])),
  // Sprig paths
  base: (p) => posixBase(str(p)),
  dir: (p) => posixDir(str(p)),
  clean: (p) => posixClean(str(p)),
  ext: (p) => posixExt(str(p)),
  isAbs: (p) => str(p).startsWith('/'),
  // Encoding
  toJson: (v) => JSON.stringify(v ?? null),
  toPrettyJson: (v) => JSON.stringify(v ?? null, null, 2),
  toRawJson: (v) => JSON.stringify(v ?? null),
  fromJson: (s) => {
    try {
      return JSON.parse(str(s)) as unknown;
    } catch {
      return {};
    }
  },
  toYaml: (v) => yamlStringify(v ?? null).replace(/\n$/, ''),
  b64enc: (s) => Buffer.from(str(s)).toString('base64'),
  b64dec: (s) => Buffer.from(str(s), 'base64').toString('utf8'),
  // Argo CD's own
  normalize: (s) => sanitizeName(str(s)),
  slugify,
};

function escapeClass(s: string): string {
  return s.replace(/[\]\\^-]/g, '\\$&');
}
