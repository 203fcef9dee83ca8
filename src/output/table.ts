/**
 * Plain-text tables in the style of Go's text/tabwriter as kubectl and argocd use it: left-aligned columns,
 * each as wide as its widest cell plus `padding` spaces; the last column is not padded.
 */
export interface TableOptions {
  padding?: number;
  /** Indent every line by this many spaces. */
  indent?: number;
}

export function renderTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  options: TableOptions = {},
): string {
  const padding = options.padding ?? 2;
  const indent = ' '.repeat(options.indent ?? 0);
  const all = [header, ...rows];
  const columns = Math.max(...all.map((r) => r.length));
  const widths = Array.from({ length: columns }, (_, c) => Math.max(...all.map((r) => (r[c] ?? '').length)));
  return all
    .map((r) => {
      const cells = r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]! + padding)));
      return indent + cells.join('').trimEnd();
    })
    .join('\n');
}
