/**
 * `prose` tags the long help texts of commands: the source keeps lines short, the text does not. A single
 * line break becomes a space; a blank line (a paragraph break) stays. oclif wraps each paragraph at the
 * terminal's width (src/cli/help-layout.ts), so a line break kept inside a paragraph would show as a ragged
 * short line at any width but one (issue 12).
 */
export function prose(strings: TemplateStringsArray, ...values: unknown[]): string {
  const text = strings.reduce((out, s, i) => out + s + (i < values.length ? String(values[i]) : ''), '');
  return text
    .split(/\n[ \t]*\n/)
    .map((paragraph) => paragraph.replace(/\s*\n\s*/g, ' ').trim())
    .join('\n\n');
}
