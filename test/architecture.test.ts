/**
 * The layout rules of docs/architecture.md, checked over the import graph of src/:
 * - each module imports only modules of a lower layer (so no arrow points up and no module circle exists);
 * - no circle of runtime imports between files (`import type` is erased and does not count);
 * - outside a module, only its door (`index.ts`) is imported, where it has one.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const src = join(fileURLToPath(import.meta.url), '..', '..', 'src');

/** Layer of each module: a module may import only modules of a strictly lower layer. */
const LAYERS: Record<string, number> = {
  common: 0,
  util: 1,
  queue: 1,
  schema: 2,
  health: 2,
  diff: 3,
  embedded: 3,
  cluster: 3,
  apps: 4,
  source: 5,
  sharding: 5,
  sync: 6,
  controller: 7,
  preview: 8,
  output: 9,
  // Metrics listen to the engine's events; only commands wire them (checked below).
  metrics: 9,
  commands: 10,
  cli: 11,
};

interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

function importsOf(file: string): Edge[] {
  const text = readFileSync(file, 'utf8');
  const edges: Edge[] = [];
  const pattern =
    /^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/gm;
  for (const m of text.matchAll(pattern)) {
    const spec = m[3] ?? m[4];
    if (!spec || spec.endsWith('.json')) continue;
    edges.push({
      from: file,
      to: resolve(dirname(file), spec).replace(/\.js$/, '.ts'),
      typeOnly: Boolean(m[2]),
    });
  }
  return edges;
}

/** The module a file belongs to: its first folder under src/ (root files such as cli.ts belong to none). */
function moduleOf(file: string): string | undefined {
  const parts = relative(src, file).split('/');
  return parts.length > 1 ? parts[0] : undefined;
}

const files = sourceFiles(src);
const edges = files.flatMap(importsOf);

describe('architecture', () => {
  it('every module has a layer', () => {
    const modules = readdirSync(src).filter((entry) => statSync(join(src, entry)).isDirectory());
    assert.deepEqual(
      modules.filter((m) => LAYERS[m] === undefined),
      [],
      'add new modules to LAYERS here and to docs/architecture.md',
    );
  });

  it('modules import only modules of a lower layer', () => {
    const upward = edges.flatMap(({ from, to }) => {
      const a = moduleOf(from);
      const b = moduleOf(to);
      if (a === undefined || b === undefined || a === b) return [];
      return (LAYERS[b] ?? Infinity) < (LAYERS[a] ?? -Infinity) ? [] : [`${relative(src, from)} -> ${b}`];
    });
    assert.deepEqual(upward, []);
  });

  it('no circle of runtime imports between files', () => {
    const graph = new Map<string, string[]>();
    for (const e of edges) if (!e.typeOnly) graph.set(e.from, [...(graph.get(e.from) ?? []), e.to]);
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const circles: string[] = [];
    const visit = (file: string): void => {
      state.set(file, 'open');
      stack.push(file);
      for (const next of graph.get(file) ?? []) {
        if (state.get(next) === 'open') {
          circles.push(
            stack
              .slice(stack.indexOf(next))
              .map((f) => relative(src, f))
              .join(' > '),
          );
        } else if (!state.has(next)) visit(next);
      }
      stack.pop();
      state.set(file, 'done');
    };
    for (const file of files) if (!state.has(file)) visit(file);
    assert.deepEqual(circles, []);
  });

  it('imports from outside a module go through its index.ts when it has one', () => {
    const deep = edges.flatMap(({ from, to }) => {
      const b = moduleOf(to);
      if (b === undefined || moduleOf(from) === b || !existsSync(join(src, b, 'index.ts'))) return [];
      // A door may be a sub-module's own (src/apps/appset/index.ts).
      return to.endsWith('/index.ts') ? [] : [`${relative(src, from)} -> ${relative(src, to)}`];
    });
    assert.deepEqual(deep, []);
  });

  it('only commands import src/metrics (the engine emits events, metrics listen)', () => {
    const users = edges.flatMap(({ from, to }) => {
      const a = moduleOf(from);
      if (moduleOf(to) !== 'metrics' || a === 'metrics' || a === 'commands') return [];
      return [`${relative(src, from)} -> metrics`];
    });
    assert.deepEqual(users, []);
    // And metrics take only types from the engine (controller, cluster): they listen, never drive.
    const driving = edges.flatMap(({ from, to, typeOnly }) =>
      moduleOf(from) === 'metrics' && ['controller', 'cluster'].includes(moduleOf(to) ?? '') && !typeOnly
        ? [`${relative(src, from)} -> ${relative(src, to)}`]
        : [],
    );
    assert.deepEqual(driving, []);
  });

  it('finds the imports it checks (the checks cannot pass on an empty graph)', () => {
    assert.ok(edges.some((e) => e.typeOnly));
    assert.ok(edges.some((e) => moduleOf(e.from) === 'controller' && moduleOf(e.to) === 'cluster'));
  });
});
