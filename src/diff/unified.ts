/**
 * Unified diff text, like `diff -u` / `kubectl diff`: old (live) lines as "-", new (Git) lines as "+".
 *
 * - Line diff: Myers' O(ND) greedy algorithm after trimming the common prefix and suffix; when the edit
 *   distance exceeds MAX_EDITS the middle is reported as one replaced block (still a correct diff).
 * - Hunks: `@@ -l,s +l,s @@` with `context` unchanged lines around changes (default 3); adjacent hunks
 *   whose context would overlap are joined. Empty ranges print as `l,0` with l the line before (GNU diff).
 * - YAML rendering: map keys sorted, no line folding, list items at their key's indentation (as kubectl
 *   prints), so equal objects print equal text.
 */
import { stringify } from 'yaml';
import { sortKeys } from './paths.js';
import type { Json } from './types.js';

export const MAX_EDITS = 2000;

export type Op = { op: ' ' | '-' | '+'; line: string };

/** YAML text of an object ("" for null): sorted keys, no folding. */
export function toYaml(obj: Json | null | undefined): string {
  if (obj === null || obj === undefined) return '';
  // YAML 1.1 like kubectl diff's output: strings such as `yes` or `on` stay quoted, as kubectl reads them.
  return stringify(sortKeys(obj), { version: '1.1', lineWidth: 0, indentSeq: false });
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The edit script turning `a` into `b`. */
export function diffLines(a: readonly string[], b: readonly string[]): Op[] {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf])
    suf++;
  const ops: Op[] = a.slice(0, pre).map((line) => ({ op: ' ', line }));
  ops.push(...myers(a.slice(pre, a.length - suf), b.slice(pre, b.length - suf)));
  ops.push(...a.slice(a.length - suf).map((line): Op => ({ op: ' ', line })));
  return ops;
}

function myers(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, MAX_EDITS);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    // Keep only the diagonals step d reads (k-1..k+1 for |k| <= d): memory O(D^2), bounded by MAX_EDITS.
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!);
      let x = down ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, a, b, d);
    }
  }
  return [...a.map((line): Op => ({ op: '-', line })), ...b.map((line): Op => ({ op: '+', line }))];
}

function backtrack(trace: Int32Array[], a: readonly string[], b: readonly string[], dEnd: number): Op[] {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = dEnd; d > 0; d--) {
    const v = trace[d]!;
    const at = (k: number): number => v[k + d + 1]!;
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push({ op: ' ', line: a[--x]! });
      y--;
    }
    if (down) ops.push({ op: '+', line: b[--y]! });
    else ops.push({ op: '-', line: a[--x]! });
  }
  while (x > 0 && y > 0) {
    ops.push({ op: ' ', line: a[--x]! });
    y--;
  }
  return ops.reverse();
}

function range(start: number, count: number): string {
  if (count === 0) return `${start - 1 < 0 ? 0 : start - 1},0`;
  return count === 1 ? `${start}` : `${start},${count}`;
}

export interface UnifiedOptions {
  /** Label of the old side (`--- <label>`). */
  oldLabel?: string;
  newLabel?: string;
  context?: number;
}

/** Unified diff of two texts; "" when they are equal. */
export function unifiedDiff(oldText: string, newText: string, options: UnifiedOptions = {}): string {
  const context = options.context ?? 3;
  const ops = diffLines(splitLines(oldText), splitLines(newText));
  const changes = ops.map((o, i) => (o.op === ' ' ? -1 : i)).filter((i) => i >= 0);
  if (changes.length === 0) return '';
  const out = [`--- ${options.oldLabel ?? 'live'}`, `+++ ${options.newLabel ?? 'target'}`];
  // Group changed op indexes into hunks.
  const hunks: Array<[number, number]> = [];
  for (const i of changes) {
    const last = hunks[hunks.length - 1];
    if (last && i - last[1] <= 2 * context + 1) last[1] = i;
    else hunks.push([i, i]);
  }
  // Line numbers before each op.
  const oldNo: number[] = [];
  const newNo: number[] = [];
  let o = 1;
  let n = 1;
  for (const op of ops) {
    oldNo.push(o);
    newNo.push(n);
    if (op.op !== '+') o++;
    if (op.op !== '-') n++;
  }
  for (const [first, last] of hunks) {
    const from = Math.max(0, first - context);
    const to = Math.min(ops.length - 1, last + context);
    const slice = ops.slice(from, to + 1);
    const oldCount = slice.filter((x) => x.op !== '+').length;
    const newCount = slice.filter((x) => x.op !== '-').length;
    out.push(`@@ -${range(oldNo[from]!, oldCount)} +${range(newNo[from]!, newCount)} @@`);
    for (const x of slice) out.push(`${x.op}${x.line}`);
  }
  return out.join('\n') + '\n';
}
