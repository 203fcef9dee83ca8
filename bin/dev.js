#!/usr/bin/env -S node --import tsx
// Development launcher: runs the TypeScript sources directly (no build). The commands come from
// src/commands/index.ts in memory, never from a dist/ bundle that may be stale.
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { main } = await import('../src/cli/run.ts');
const { loadConfigWithInMemoryCommands } = await import('../src/cli/bundled-commands.ts');
process.exitCode = await main(process.argv.slice(2), await loadConfigWithInMemoryCommands({ root }));
