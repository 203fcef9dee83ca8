/**
 * Unified diff text, like `diff -u` / `kubectl diff`: old (live) lines as "-", new (Git) lines as "+".
 *
 * - Line diff and hunks: jsdiff's `structuredPatch` (the `diff` package: Myers' O(ND) algorithm, hunks with
 *   `context` unchanged lines around changes, default 3, hunks whose context would overlap joined). When the
 *   edit distance exceeds MAX_EDITS, jsdiff gives up and the lines between the common prefix and suffix are
 *   reported as one replaced block (still a correct diff, found in linear time).
 * - Headers and hunk ranges are written here, as GNU diff writes them (what `kubectl diff` shows): labels
 *   unquoted, `@@ -l,s +l,s @@` with a count of 1 left out (`-l`), an empty range as `l,0` with l the line
 *   before. jsdiff's own `formatPatch` quotes labels with spaces and always prints the count.
 * - A missing final newline is not a difference (both texts are compared as lines).
 * - YAML rendering: map keys sorted, no line folding, list items at their key's indentation (as kubectl
 *   prints), so equal objects print equal text.
 */
import { structuredPatch, type StructuredPatchHunk } from 'diff';
import { stringify } from 'yaml';
import { sortKeys } from './paths.js';
import type { Json } from './types.js';

export const MAX_EDITS = 2000;

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

/** Text of whole lines, each ending in "\n" (so jsdiff never adds "\ No newline at end of file"). */
function asLines(text: string): string {
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}

/**
 * The one hunk of a diff too long for Myers within MAX_EDITS: common prefix and suffix kept as context,
 * the middle removed and added as one block.
 */
function replacedBlock(a: readonly string[], b: readonly string[], context: number): StructuredPatchHunk {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf])
    suf++;
  const before = a.slice(Math.max(0, pre - context), pre);
  const after = a.slice(a.length - suf, a.length - suf + Math.min(suf, context));
  const lines = [
    ...before.map((l) => ` ${l}`),
    ...a.slice(pre, a.length - suf).map((l) => `-${l}`),
    ...b.slice(pre, b.length - suf).map((l) => `+${l}`),
    ...after.map((l) => ` ${l}`),
  ];
  const oldLines = before.length + (a.length - suf - pre) + after.length;
  const newLines = before.length + (b.length - suf - pre) + after.length;
  const start = pre - before.length + 1;
  return { oldStart: start, oldLines, newStart: start, newLines, lines };
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
  const oldLines = asLines(oldText);
  const newLines = asLines(newText);
  if (oldLines === newLines) return '';
  const patch = structuredPatch('', '', oldLines, newLines, undefined, undefined, {
    context,
    maxEditLength: MAX_EDITS,
  });
  const hunks = patch ? patch.hunks : [replacedBlock(splitLines(oldLines), splitLines(newLines), context)];
  if (hunks.length === 0) return '';
  const out = [`--- ${options.oldLabel ?? 'live'}`, `+++ ${options.newLabel ?? 'target'}`];
  for (const h of hunks) {
    out.push(`@@ -${range(h.oldStart, h.oldLines)} +${range(h.newStart, h.newLines)} @@`, ...h.lines);
  }
  return out.join('\n') + '\n';
}
