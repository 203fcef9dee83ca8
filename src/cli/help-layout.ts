/**
 * `--help` that fits the terminal: every line of every help page within the width oclif measured
 * (the terminal's columns, `OCLIF_COLUMNS`, or `COLUMNS` when stdout is not a terminal; 80 otherwise),
 * paragraphs wrapped only there.
 *
 * oclif 4's help formatter (HelpFormatter, Help in @oclif/core 4.x) gets three things wrong, fixed here on
 * its prototypes (installed once, by `main`, for all three launchers):
 * - `renderList` (flags, arguments, commands) trims the whole list, so a first row whose label starts with
 *   spaces (a flag without a short form listed above `-v, --v`) loses its alignment, and its multi-line form
 *   indents descriptions past the width it wrapped them for. Replaced: two columns when the descriptions
 *   get at least a third of the width, else each label on its own line with the description under it;
 *   labels keep their relative alignment; nothing passes the width.
 * - A hand-written `static usage` is split where the line would be long with the placeholder
 *   `<%= command.id %>` in it, not with the command's name: short lines break early. Usage lines are
 *   wrapped here after the name is put in, continuation lines indented under the command.
 * - The summary line at the top of a command's help and of the root help is printed as one line, however
 *   long. `log` wraps any unindented line (only those: indented lines are sections, already wrapped).
 * Texts must not carry line breaks inside a paragraph (commands use `prose` for that; a test renders every
 * page at two widths).
 */
import { stripVTControlCharacters } from 'node:util';
import { CommandHelp, Help } from '@oclif/core';

type Row = [string, string | undefined];
interface ListOptions {
  indentation: number;
  multiline?: boolean;
  spacer?: string;
  stripAnsi?: boolean;
}
interface Formatter {
  opts: { maxWidth: number };
  wrap(body: string, spacing?: number): string;
  indent(body: string, spacing?: number): string;
}

const width = (s: string): number => stripVTControlCharacters(s).length;

function renderList(this: Formatter, input: Row[], opts: ListOptions): string {
  const rows = input
    .filter(([left, right]) => left || right)
    .map(([left, right]): Row => {
      const l = opts.stripAnsi ? stripVTControlCharacters(left ?? '') : (left ?? '');
      const r = right && opts.stripAnsi ? stripVTControlCharacters(right) : right;
      return [l.trimEnd(), r?.trim()];
    });
  if (rows.length === 0) return '';
  // Labels keep their alignment relative to each other ("-v, --v" above "    --debug"), not the common indent.
  const common = Math.min(...rows.map(([l]) => /^ */.exec(l)![0].length));
  const labels = rows.map(([l]) => l.slice(common));
  const labelWidth = Math.max(...labels.map(width));
  const available = this.opts.maxWidth - opts.indentation;
  const descriptionWidth = available - labelWidth - 2;
  const twoColumns = !opts.multiline && descriptionWidth >= Math.max(20, Math.floor(available / 3));
  if (twoColumns) {
    const pad = ' '.repeat(labelWidth + 2);
    return rows
      .map(([, right], i) => {
        const label = labels[i]!;
        if (!right) return label;
        const lines = this.wrap(right, opts.indentation + labelWidth + 2).split('\n');
        return [
          label + ' '.repeat(labelWidth - width(label) + 2) + lines[0],
          ...lines.slice(1).map((l) => pad + l),
        ]
          .map((l) => l.trimEnd())
          .join('\n');
      })
      .join(opts.spacer ?? '\n');
  }
  return rows
    .map(([, right], i) => {
      const label = this.wrap(labels[i]!.trim(), opts.indentation);
      if (!right) return label;
      return `${label}\n${this.indent(this.wrap(right, opts.indentation + 4), 4)}`;
    })
    .join('\n\n');
}

interface CommandHelpInternals extends Formatter {
  command: { id: string; usage?: string | string[] };
  config: { bin: string; topicSeparator: string };
  indentSpacing: number;
  usage(): string;
}

function usage(this: CommandHelpInternals, fallback: () => string): string {
  const { usage: written } = this.command;
  if (!written) return fallback();
  const id = this.command.id.replaceAll(':', this.config.topicSeparator);
  return (Array.isArray(written) ? written : [written])
    .map((u) => {
      const rest = u.startsWith(`${id} `) || u === id ? u.slice(id.length).trim() : u;
      // Wrapped 2 columns narrower than the section allows: continuation lines are indented 2 more.
      // A bracketed group ("[--revision REV]") is kept on one line: its spaces do not break while wrapping.
      let depth = 0;
      const unbreakable = [...`$ ${this.config.bin} ${id} ${rest}`.trim()]
        .map((c) => {
          depth += c === '[' ? 1 : c === ']' ? -1 : 0;
          return c === ' ' && depth > 0 ? NBSP : c;
        })
        .join('');
      const [first, ...more] = this.wrap(unbreakable, this.indentSpacing * 2)
        .replaceAll(NBSP, ' ')
        .split('\n');
      return [first, ...more.map((l) => `  ${l}`)].join('\n');
    })
    .join('\n');
}

const NBSP = '\u00a0';

let installed = false;

export function installHelpLayout(): void {
  if (installed) return;
  installed = true;
  // HelpFormatter, the base of CommandHelp and Help, is not exported by @oclif/core.
  const formatter = Object.getPrototypeOf(CommandHelp.prototype) as { renderList: typeof renderList };
  formatter.renderList = renderList;
  const commandHelp = CommandHelp.prototype as unknown as CommandHelpInternals;
  const defaultUsage = commandHelp.usage;
  commandHelp.usage = function (this: CommandHelpInternals) {
    return usage.call(this, () => defaultUsage.call(this));
  };
  const proto = Help.prototype as unknown as Formatter & { log(...args: string[]): void };
  const log = proto.log;
  proto.log = function (this: Formatter, ...args: string[]) {
    const wrapped = args.map((text) =>
      typeof text !== 'string'
        ? text
        : text
            .split('\n')
            .map((line) =>
              width(line) > this.opts.maxWidth && !/^\s/.test(line) ? this.wrap(line, 0) : line,
            )
            .join('\n'),
    );
    log.apply(this, wrapped);
  };
}
