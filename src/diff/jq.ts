/**
 * The jq subset of `ignoreDifferences.jqPathExpressions`. Argo CD runs `del(<expression>)` with gojq; this
 * module parses the expression once and deletes the paths it produces.
 *
 * Supported (what Argo CD users write):
 * - paths: `.`, `.a.b`, `."a/b"`, `.["a/b"]`, `.a[0]`, `.a[-1]`, `.a[]`, `.[]`, `..`, `?` after any step
 *   (suppresses its errors), pipes `|` and alternatives `,` of paths;
 * - `select(cond)` as a pipe stage, where cond combines relative paths and literals (strings, numbers,
 *   true, false, null) with `==`, `!=`, `<`, `<=`, `>`, `>=`, `and`, `or`, parentheses, `| not`, and the
 *   filters `startswith(s)`, `endswith(s)`, `contains(x)`, `test(re)`, `has(k)`, `length`,
 *   `ascii_downcase`, `ascii_upcase`, `type`, and `a // b`; path steps may follow `select(...)`
 *   (`select(.name == "x").value`);
 * - `a // b` on paths: the paths of `a` whose values are neither null nor false (its errors ignored), else
 *   those of `b`, as gojq's path(a // b).
 * Anything else is rejected at parse time with a UsageError naming the expression and the column.
 * Run-time semantics follow jq: `.a` on a string or number, `.[]` on null or a scalar, `.[0]` on an
 * object are errors (unless `?`), and an error anywhere aborts the whole deletion, as gojq's error makes
 * Argo CD skip that expression. Paths are deleted deepest and highest index first.
 */
import { deepEqual, isMap } from './paths.js';
import { JqRuntimeError } from './jq-parse.js';
import type { Cond, JqProgram, PathExpr, Seg, Step } from './jq-parse.js';
import type { Json } from './types.js';

export { JqRuntimeError, parseJq } from './jq-parse.js';
export type { JqProgram } from './jq-parse.js';

interface PV {
  path: Seg[];
  value: Json;
}

function typeName(v: Json): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'object' ? 'object' : typeof v;
}

function applyStep(step: Step, pv: PV): PV[] {
  const { path, value } = pv;
  try {
    switch (step.t) {
      case 'key':
        if (value === null) return [{ path: [...path, step.key], value: null }];
        if (!isMap(value)) throw new JqRuntimeError(`cannot index ${typeName(value)} with "${step.key}"`);
        return [{ path: [...path, step.key], value: value[step.key] ?? null }];
      case 'index': {
        if (value === null) return [{ path: [...path, step.index], value: null }];
        if (!Array.isArray(value)) throw new JqRuntimeError(`cannot index ${typeName(value)} with number`);
        const idx = step.index < 0 ? value.length + step.index : step.index;
        return [{ path: [...path, idx], value: value[idx] ?? null }];
      }
      case 'iter':
        if (Array.isArray(value)) return value.map((v, idx) => ({ path: [...path, idx], value: v }));
        if (isMap(value)) return Object.entries(value).map(([k, v]) => ({ path: [...path, k], value: v }));
        throw new JqRuntimeError(`cannot iterate over ${typeName(value)}`);
      case 'recurse': {
        const out: PV[] = [];
        const rec = (p: PV): void => {
          out.push(p);
          if (Array.isArray(p.value)) p.value.forEach((v, idx) => rec({ path: [...p.path, idx], value: v }));
          else if (isMap(p.value))
            for (const [k, v] of Object.entries(p.value)) rec({ path: [...p.path, k], value: v });
        };
        rec(pv);
        return out;
      }
      case 'select':
        return evalCond(step.cond, value).some(truthy) ? [pv] : [];
      case 'alt': {
        const left = suppressed(() => runSteps(step.left, pv)).filter((p) => truthy(p.value));
        return left.length > 0 ? left : runSteps(step.right, pv);
      }
    }
  } catch (err) {
    if (err instanceof JqRuntimeError && 'opt' in step && step.opt) return [];
    throw err;
  }
}

function runSteps(steps: readonly Step[], root: PV): PV[] {
  let cur: PV[] = [root];
  for (const step of steps) cur = cur.flatMap((pv) => applyStep(step, pv));
  return cur;
}

/** jq's `//` ignores errors of its left side. */
function suppressed<T>(run: () => T[]): T[] {
  try {
    return run();
  } catch (err) {
    if (err instanceof JqRuntimeError) return [];
    throw err;
  }
}

function evalPaths(expr: PathExpr, root: PV): PV[] {
  const out: PV[] = [];
  for (const pipeline of expr) {
    let cur: PV[] = [root];
    for (const step of pipeline) cur = cur.flatMap((pv) => applyStep(step, pv));
    out.push(...cur);
  }
  return out;
}

function truthy(v: Json): boolean {
  return v !== null && v !== false;
}

const ORDER = ['null', 'boolean', 'number', 'string', 'array', 'object'];

function compare(a: Json, b: Json): number {
  const ta = ORDER.indexOf(typeName(a));
  const tb = ORDER.indexOf(typeName(b));
  if (ta !== tb) return ta - tb;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (deepEqual(a, b)) return 0;
  return JSON.stringify(a) < JSON.stringify(b) ? -1 : 1;
}

function contains(a: Json, b: Json): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a.includes(b);
  if (Array.isArray(a) && Array.isArray(b)) return b.every((x) => a.some((y) => contains(y, x)));
  if (isMap(a) && isMap(b))
    return Object.entries(b).every(([k, v]) => Object.hasOwn(a, k) && contains(a[k]!, v));
  if (typeName(a) !== typeName(b))
    throw new JqRuntimeError(`${typeName(a)} and ${typeName(b)} cannot have their containment checked`);
  return deepEqual(a, b);
}

function needString(name: string, v: Json): string {
  if (typeof v !== 'string') throw new JqRuntimeError(`${name}() cannot be applied to ${typeName(v)}`);
  return v;
}

function callFn(name: string, input: Json, arg: Json | undefined): Json {
  switch (name) {
    case 'not':
      return !truthy(input);
    case 'length':
      if (typeof input === 'string' || Array.isArray(input)) return input.length;
      if (isMap(input)) return Object.keys(input).length;
      if (input === null) return 0;
      if (typeof input === 'number') return Math.abs(input);
      throw new JqRuntimeError('boolean has no length');
    case 'type':
      return typeName(input);
    case 'ascii_downcase':
      return needString(name, input).toLowerCase();
    case 'ascii_upcase':
      return needString(name, input).toUpperCase();
    case 'startswith':
      return needString(name, input).startsWith(needString(name, arg ?? null));
    case 'endswith':
      return needString(name, input).endsWith(needString(name, arg ?? null));
    case 'test':
      return regex(needString(name, arg ?? null)).test(needString(name, input));
    case 'contains':
      return contains(input, arg ?? null);
    case 'has':
      if (isMap(input) && typeof arg === 'string') return Object.hasOwn(input, arg);
      if (Array.isArray(input) && typeof arg === 'number') return arg >= 0 && arg < input.length;
      throw new JqRuntimeError(`cannot check whether ${typeName(input)} has a ${typeName(arg ?? null)} key`);
  }
  throw new JqRuntimeError(`unknown function ${name}`);
}

function regex(source: string): RegExp {
  try {
    return new RegExp(source);
  } catch {
    throw new JqRuntimeError(`${JSON.stringify(source)} cannot be matched, as it is not a valid regex`);
  }
}

function evalCond(c: Cond, input: Json): Json[] {
  switch (c.c) {
    case 'lit':
      return [c.value];
    case 'path':
      return evalPaths(c.expr, { path: [], value: input }).map((pv) => pv.value);
    case 'pipe':
      return evalCond(c.left, input).flatMap((v) => evalCond(c.right, v));
    case 'fn':
      if (!c.arg) return [callFn(c.name, input, undefined)];
      return evalCond(c.arg, input).map((a) => callFn(c.name, input, a));
    case 'bin': {
      if (c.op === '//') {
        const l = suppressed(() => evalCond(c.left, input)).filter(truthy);
        return l.length > 0 ? l : evalCond(c.right, input);
      }
      if (c.op === 'and' || c.op === 'or') {
        const l = evalCond(c.left, input).some(truthy);
        if (c.op === 'and' ? !l : l) return [l];
        return [evalCond(c.right, input).some(truthy)];
      }
      const out: Json[] = [];
      for (const l of evalCond(c.left, input)) {
        for (const r of evalCond(c.right, input)) {
          const d = compare(l, r);
          const ops: Record<string, boolean> = {
            '==': d === 0,
            '!=': d !== 0,
            '<': d < 0,
            '<=': d <= 0,
            '>': d > 0,
            '>=': d >= 0,
          };
          out.push(ops[c.op]!);
        }
      }
      return out;
    }
  }
}

function comparePaths(a: Seg[], b: Seg[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    if (typeof x !== typeof y) return typeof x === 'number' ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/** The paths `program` selects in `doc` (may throw JqRuntimeError). */
export function jqPaths(program: JqProgram, doc: Json): Seg[][] {
  return evalPaths(program.expr, { path: [], value: doc }).map((pv) => pv.path);
}

/**
 * `del(<program>)` on `doc`, in place. Deleting the root or a path whose parent is missing does nothing.
 * Throws JqRuntimeError (with nothing deleted) when jq would fail.
 */
export function jqDelete(program: JqProgram, doc: Json): void {
  const unique = new Map(jqPaths(program, doc).map((p) => [JSON.stringify(p), p]));
  const paths = [...unique.values()].sort(comparePaths).reverse();
  for (const path of paths) {
    if (path.length === 0) continue;
    let parent: Json | undefined = doc;
    for (const seg of path.slice(0, -1)) {
      parent =
        isMap(parent) && typeof seg === 'string'
          ? parent[seg]
          : Array.isArray(parent) && typeof seg === 'number'
            ? parent[seg]
            : undefined;
    }
    const last = path[path.length - 1]!;
    if (isMap(parent) && typeof last === 'string') delete parent[last];
    else if (Array.isArray(parent) && typeof last === 'number' && last >= 0 && last < parent.length)
      parent.splice(last, 1);
  }
}
