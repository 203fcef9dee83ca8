/**
 * Parser of the jq subset (see jq.ts for the supported syntax and semantics). Produces a small AST of
 * alternatives of step pipelines; conditions of `select(...)` are expression trees.
 */
import { UsageError } from '../common/index.js';
import type { Json } from './types.js';

export type Seg = string | number;
export type Step =
  | { t: 'key'; key: string; opt: boolean }
  | { t: 'index'; index: number; opt: boolean }
  | { t: 'iter'; opt: boolean }
  | { t: 'recurse' }
  | { t: 'select'; cond: Cond }
  /** `a // b`: the paths of `a` whose values are truthy (errors suppressed), else those of `b` (gojq). */
  | { t: 'alt'; left: Step[]; right: Step[] };
/** Alternatives (`,`) of pipelines of steps. */
export type PathExpr = Step[][];
export type Cond =
  | { c: 'lit'; value: Json }
  | { c: 'path'; expr: PathExpr }
  | { c: 'pipe'; left: Cond; right: Cond }
  | { c: 'bin'; op: string; left: Cond; right: Cond }
  | { c: 'fn'; name: string; arg?: Cond };

export interface JqProgram {
  source: string;
  expr: PathExpr;
}

/** A run-time error of jq semantics; the caller skips the expression. */
export class JqRuntimeError extends Error {}

const TOKEN =
  /\s*(?:(\.\.)|("(?:[^"\\]|\\.)*")|(-?\d+(?:\.\d+)?)|([A-Za-z_][A-Za-z0-9_]*)|(\/\/|==|!=|<=|>=|[.[\]|,()?<>]))/y;
const SUPPORTED =
  'supported: .a.b, ."k", .["k"], .[n], .[], ?, .., |, ",", //, select(...) with ==, !=, <, <=, >, >=, //, and, or, not, ' +
  'startswith, endswith, contains, test, has, length';
const FILTERS0 = new Set(['not', 'length', 'ascii_downcase', 'ascii_upcase', 'type']);
const LITERALS = new Map<string, Json>([
  ['true', true],
  ['false', false],
  ['null', null],
]);
const FILTERS1 = new Set(['startswith', 'endswith', 'contains', 'test', 'has']);

interface Tok {
  text: string;
  kind: 'op' | 'str' | 'num' | 'ident';
  col: number;
}

function tokenize(src: string, fail: (col: number, what: string) => never): Tok[] {
  const out: Tok[] = [];
  TOKEN.lastIndex = 0;
  let pos = 0;
  while (pos < src.length) {
    const rest = src.slice(pos);
    if (rest.trim() === '') break;
    TOKEN.lastIndex = pos;
    const m = TOKEN.exec(src);
    if (!m) return fail(pos + 1 + rest.length - rest.trimStart().length, 'unexpected character');
    const col = m.index + m[0].length - m[0].trimStart().length + 1;
    if (m[1] ?? m[5]) out.push({ text: (m[1] ?? m[5])!, kind: 'op', col });
    else if (m[2]) out.push({ text: m[2], kind: 'str', col });
    else if (m[3]) out.push({ text: m[3], kind: 'num', col });
    else out.push({ text: m[4]!, kind: 'ident', col });
    pos = TOKEN.lastIndex;
  }
  return out;
}

/** Parses an expression; throws a UsageError naming it on unsupported syntax. */
export function parseJq(source: string): JqProgram {
  const fail = (col: number, what: string): never => {
    throw new UsageError(`failed to parse: ${what} at column ${col} (${SUPPORTED})`, {
      subject: `jqPathExpression ${JSON.stringify(source)}`,
    });
  };
  const toks = tokenize(source, fail);
  let i = 0;
  const peek = (o = 0): Tok | undefined => toks[i + o];
  const at = (text: string): boolean => peek()?.kind !== 'str' && peek()?.text === text;
  const col = (): number => peek()?.col ?? source.length + 1;
  const unexpected = (): never =>
    fail(col(), peek() ? `unexpected ${JSON.stringify(peek()!.text)}` : 'unexpected end');
  const expect = (text: string): void => {
    if (!at(text)) unexpected();
    i++;
  };
  const str = (t: Tok): string => JSON.parse(t.text) as string;

  function pathExpr(): PathExpr {
    const alts: Step[][] = [pipeline()];
    while (at(',')) {
      i++;
      alts.push(pipeline());
    }
    return alts;
  }
  function pipeline(): Step[] {
    const steps = altTerm();
    while (at('|')) {
      i++;
      steps.push(...altTerm());
    }
    return steps;
  }
  /** `//` binds tighter than `|` and `,`, and to the right. */
  function altTerm(): Step[] {
    const left = term();
    if (!at('//')) return left;
    i++;
    return [{ t: 'alt', left, right: altTerm() }];
  }
  function term(): Step[] {
    const steps: Step[] = [];
    if (peek()?.kind === 'ident' && peek()!.text === 'select') {
      i++;
      expect('(');
      steps.push({ t: 'select', cond: cond() });
      expect(')');
      suffixes(steps); // select(...).value, select(...)[0]
      return steps;
    }
    const word = peek();
    if (word?.kind === 'ident') fail(word.col, `unsupported function ${JSON.stringify(word.text)}`);
    if (at('..')) {
      i++;
      steps.push({ t: 'recurse' });
    } else {
      expect('.');
      const t = peek();
      if (t && (t.kind === 'ident' || t.kind === 'str') && !(t.kind === 'ident' && isKeyword(t.text))) {
        i++;
        steps.push({ t: 'key', key: t.kind === 'str' ? str(t) : t.text, opt: false });
      }
    }
    suffixes(steps);
    return steps;
  }
  function suffixes(steps: Step[]): void {
    for (;;) {
      if (at('?')) {
        i++;
        const last = steps[steps.length - 1];
        if (last && 'opt' in last) last.opt = true;
      } else if (at('[')) {
        i++;
        const t = peek();
        if (at(']')) steps.push({ t: 'iter', opt: false });
        else if (t?.kind === 'str') {
          i++;
          steps.push({ t: 'key', key: str(t), opt: false });
        } else if (t?.kind === 'num' && Number.isInteger(Number(t.text))) {
          i++;
          steps.push({ t: 'index', index: Number(t.text), opt: false });
        } else unexpected();
        if (peek()?.kind === 'str' || peek()?.kind === 'num') unexpected();
        expect(']');
      } else if (at('.') && (peek(1)?.kind === 'ident' || peek(1)?.kind === 'str' || peek(1)?.text === '[')) {
        i++;
        const t = peek()!;
        if (t.text !== '[' || t.kind === 'str') {
          i++;
          steps.push({ t: 'key', key: t.kind === 'str' ? str(t) : t.text, opt: false });
        }
      } else return;
    }
  }
  function isKeyword(w: string): boolean {
    return w === 'and' || w === 'or';
  }
  function cond(): Cond {
    let left = altExpr();
    while (at('|')) {
      i++;
      left = { c: 'pipe', left, right: altExpr() };
    }
    return left;
  }
  /** `a // b` (below `or` and `and` in jq's precedence, right-associative). */
  function altExpr(): Cond {
    const left = orExpr();
    if (!at('//')) return left;
    i++;
    return { c: 'bin', op: '//', left, right: altExpr() };
  }
  function orExpr(): Cond {
    let left = andExpr();
    while (peek()?.kind === 'ident' && peek()!.text === 'or') {
      i++;
      left = { c: 'bin', op: 'or', left, right: andExpr() };
    }
    return left;
  }
  function andExpr(): Cond {
    let left = cmpExpr();
    while (peek()?.kind === 'ident' && peek()!.text === 'and') {
      i++;
      left = { c: 'bin', op: 'and', left, right: cmpExpr() };
    }
    return left;
  }
  function cmpExpr(): Cond {
    const left = primary();
    const op = peek();
    if (op?.kind === 'op' && ['==', '!=', '<', '<=', '>', '>='].includes(op.text)) {
      i++;
      return { c: 'bin', op: op.text, left, right: primary() };
    }
    return left;
  }
  function primary(): Cond {
    const t = peek();
    if (!t) return unexpected();
    if (t.kind === 'str' || t.kind === 'num') {
      i++;
      return { c: 'lit', value: t.kind === 'str' ? str(t) : Number(t.text) };
    }
    if (at('(')) {
      i++;
      const c = cond();
      expect(')');
      return c;
    }
    if (t.kind === 'ident') {
      const literal = LITERALS.get(t.text);
      if (literal !== undefined || FILTERS0.has(t.text)) {
        i++;
        return literal !== undefined ? { c: 'lit', value: literal } : { c: 'fn', name: t.text };
      }
      if (FILTERS1.has(t.text)) {
        i++;
        expect('(');
        const arg = cond();
        expect(')');
        return { c: 'fn', name: t.text, arg };
      }
      if (t.text !== 'select') return fail(t.col, `unsupported function ${JSON.stringify(t.text)}`);
    }
    return { c: 'path', expr: [term()] };
  }

  if (toks.length === 0) fail(1, 'empty expression');
  const expr = pathExpr();
  if (i < toks.length) unexpected();
  return { source, expr };
}
