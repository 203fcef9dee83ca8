/**
 * `--help` fits any terminal (issue 12): every command's help (and the root help) rendered by the built CLI
 * at 60 and 120 columns (COLUMNS, stdout a pipe) has no line longer than the width, no paragraph broken
 * before the width (each line of a DESCRIPTION paragraph but its last is full: the next word would not have
 * fitted), labels of a flag list aligned, and usage lines that are the hand-written ones. The texts
 * themselves carry no line break inside a paragraph.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { COMMANDS } from '../../src/commands/index.js';
import { runCli } from '../support/cli.js';

const WIDTHS = [60, 120];
const ids = Object.keys(COMMANDS).sort();

function section(text: string, header: string): string[] {
  const lines = text.split('\n');
  const start = lines.indexOf(header);
  if (start < 0) return [];
  const end = lines.findIndex((l, i) => i > start && /^[A-Z][A-Z ]+$/.test(l));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** Lines i of a paragraph (not its last) whose next line's first word would have fitted after them. */
function brokenEarly(lines: string[], width: number): string[] {
  const broken: string[] = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    const line = lines[i]!;
    const next = lines[i + 1]!;
    if (!line.trim() || !next.trim()) continue;
    const nextWord = next.trim().split(' ')[0]!;
    if (line.length + 1 + nextWord.length <= width) broken.push(`${line} | ${nextWord}`);
  }
  return broken;
}

describe('--help layout', () => {
  it('command texts have no line break inside a paragraph', () => {
    const offenders: string[] = [];
    const check = (what: string, text: unknown): void => {
      if (typeof text !== 'string') return;
      for (const paragraph of text.split(/\n\n+/)) if (paragraph.includes('\n')) offenders.push(what);
    };
    for (const [id, command] of Object.entries(COMMANDS)) {
      const c = command as unknown as {
        summary?: string;
        description?: string;
        flags?: Record<string, { description?: string; summary?: string }>;
        baseFlags?: Record<string, { description?: string; summary?: string }>;
        examples?: Array<string | { description: string }>;
      };
      check(`${id} summary`, c.summary);
      check(`${id} description`, c.description);
      for (const [name, flag] of Object.entries({ ...c.baseFlags, ...c.flags })) {
        check(`${id} --${name}`, flag.description);
        check(`${id} --${name} summary`, flag.summary);
      }
      for (const example of c.examples ?? [])
        assert.equal(typeof example, 'object', `${id}: examples have a description (oclif wraps only those)`);
    }
    assert.deepEqual(offenders, []);
  });

  for (const width of WIDTHS) {
    for (const id of ['', ...ids]) {
      it(`${id || '(root)'} --help at ${width} columns`, async () => {
        const r = await runCli([...(id ? id.split(':') : []), '--help'], {
          env: { COLUMNS: String(width), OCLIF_COLUMNS: undefined },
        });
        assert.equal(r.code, 0, r.stderr);
        const lines = r.stdout.split('\n');
        const tooLong = lines.filter((l) => l.length > width);
        assert.deepEqual(tooLong, [], `lines longer than ${width}`);
        assert.deepEqual(brokenEarly(section(r.stdout, 'DESCRIPTION'), width), [], 'paragraph broken early');
        // The summary at the top is one paragraph wrapped at the width.
        const top = lines.slice(0, lines.indexOf(''));
        assert.deepEqual(brokenEarly(top, width), [], 'summary broken early');
        for (const header of ['FLAGS', 'GLOBAL FLAGS']) {
          // Two-column lists: every description starts in the same column.
          const rows = section(r.stdout, header).filter((l) => /^ {2}(-\w, )?--\S+ {2,}\S/.test(l));
          const columns = new Set(rows.map((l) => /^ {2}\S.*? {2,}(?=\S)/.exec(l)![0].length));
          assert.ok(columns.size <= 1, `${header}: descriptions start in columns ${[...columns].join(', ')}`);
          const labels = new Set(
            section(r.stdout, header)
              .filter((l) => /^ {2}(-\w, | {4})--/.test(l))
              .map((l) => l.indexOf('--')),
          );
          assert.ok(
            labels.size <= 1,
            `${header}: long flag names start in columns ${[...labels].join(', ')}`,
          );
        }
        if (id && id !== 'help') {
          const written = (COMMANDS as Record<string, { usage?: string[] }>)[id]!.usage;
          assert.ok(written && written.length > 0, `${id} has a hand-written static usage`);
          const usage = section(r.stdout, 'USAGE')
            .join('\n')
            .replace(/\n {4}/g, ' ');
          for (const u of written)
            assert.ok(usage.includes(`$ kubectl gitops ${u}`), `${id}: ${u}\n${usage}`);
          assert.doesNotMatch(usage, /\S {2,}\S| \]|\[ /, 'no stray spaces in usage lines');
        }
      });
    }
  }
});
