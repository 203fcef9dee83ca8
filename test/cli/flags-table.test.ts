/**
 * docs/usage/flags.md, the one table of every flag across commands (moved from the README, issue 24), names
 * every flag (and alias) every command defines. Each command's own page in docs/commands/ is generated from
 * the definitions (test/cli/docs-reference.test.ts); this table is written by hand, so it is checked here.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMANDS } from '../../src/commands/index.js';
import { repoRoot } from '../support/paths.js';

describe('flags table (docs/usage/flags.md)', () => {
  it('lists every flag of every command', () => {
    const section = readFileSync(join(repoRoot, 'docs', 'usage', 'flags.md'), 'utf8');
    assert.ok(section.startsWith('# Flags at a glance'), 'docs/usage/flags.md is the flags table');
    const missing: string[] = [];
    for (const [id, command] of Object.entries(COMMANDS)) {
      if (id === 'help') continue;
      const c = command as unknown as { flags?: object; baseFlags?: object };
      for (const [name, flag] of Object.entries({ ...c.baseFlags, ...c.flags })) {
        const f = flag as { aliases?: string[]; allowNo?: boolean };
        for (const n of [name, ...(f.aliases ?? [])]) {
          const written = f.allowNo ? [`--${n}`, `--[no-]${n}`] : [`--${n}`];
          if (!written.some((w) => new RegExp(`\`${w.replace(/[[\]]/g, '\\$&')}[\` ]`).test(section)))
            missing.push(`${id} --${n}`);
        }
      }
      assert.ok(section.includes(`\`${id}\``), `command ${id} is not named in the section`);
    }
    assert.deepEqual(missing, [], 'add these flags to docs/usage/flags.md');
  });
});
