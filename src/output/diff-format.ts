/**
 * `kubectl gitops diff -o <format>`: picks the printer (diff.ts, diff-markdown.ts) for a format.
 * `diffReportChunks` is what the command writes: `-o json` streamed app by app (diff.ts `diffJsonChunks`,
 * the same bytes as `renderDiffReport`), every other format as one text.
 */
import type { RunReport } from '../controller/index.js';
import { diffJsonChunks, renderDiffNames, renderDiffStructured, renderDiffText } from './diff.js';
import type { DiffFormat } from './diff.js';
import { DEFAULT_MAX_OUTPUT_BYTES, renderDiffMarkdown } from './diff-markdown.js';

export const DIFF_FORMATS: readonly DiffFormat[] = ['diff', 'json', 'yaml', 'name', 'markdown'];

export interface DiffOutputOptions {
  /** ANSI colours in the default format. */
  color?: boolean;
  /** Cap of the markdown format. */
  maxBytes?: number;
}

export function renderDiffReport(
  report: RunReport,
  format: DiffFormat,
  options: DiffOutputOptions = {},
): string {
  switch (format) {
    case 'json':
    case 'yaml':
      return renderDiffStructured(report, format);
    case 'name':
      return renderDiffNames(report);
    case 'markdown':
      return renderDiffMarkdown(report, options.maxBytes ?? DEFAULT_MAX_OUTPUT_BYTES);
    default:
      return renderDiffText(report, { color: options.color ?? false });
  }
}

/** The report as the chunks the command writes (see the header); together, `renderDiffReport`'s text. */
export function* diffReportChunks(
  report: RunReport,
  format: DiffFormat,
  options: DiffOutputOptions = {},
): Generator<string> {
  if (format === 'json') yield* diffJsonChunks(report);
  else yield renderDiffReport(report, format, options);
}
