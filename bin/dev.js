#!/usr/bin/env -S node --import tsx
// Development launcher: runs the TypeScript sources directly (no build), same entry as the bundle.
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
process.env.NODE_ENV ??= 'development';
const { main } = await import('../src/cli.ts');
process.exitCode = await main(process.argv.slice(2), root);
