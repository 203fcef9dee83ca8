/**
 * The layout rules of docs/architecture.md, checked over the import graph of src/:
 * - each module imports only modules of a lower layer (so no arrow points up and no module circle exists);
 * - no circle of runtime imports between files (`import type` is erased and does not count);
 * - no circle of imports among the files of one folder, `import type` included, so each folder reads top
 *   to bottom;
 * - outside a module, only its door (`index.ts`) is imported, where it has one;
 * - the controller's programs are rooms (src/controller/<room>/, each with its door): a room imports only
 *   the rooms below it, through their doors.
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

/**
 * The programs of src/controller/, each a room with a door (`index.ts`), and the rooms each may import:
 * arrows go down only into the refresh room and through the loop's door (docs/architecture.md).
 */
const CONTROLLER_ROOMS: Record<string, string[]> = {
  refresh: [],
  run: ['refresh'],
  loop: ['refresh'],
  'app-controller': ['loop', 'refresh'],
  appset: [],
};
const controller = join(src, 'controller');

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

/** The controller room a file belongs to (undefined outside src/controller/ and for its door). */
function roomOf(file: string): string | undefined {
  const parts = relative(controller, file).split('/');
  return parts[0] !== '..' && parts.length > 1 ? parts[0] : undefined;
}

/** Each circle of `graph` once, as its files in import order. */
function circlesOf(nodes: readonly string[], graph: Map<string, string[]>): string[] {
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
  for (const node of nodes) if (!state.has(node)) visit(node);
  return circles;
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
    for (const e of edges)
      if (!e.typeOnly) graph.set(e.from, [...new Set([...(graph.get(e.from) ?? []), e.to])]);
    assert.deepEqual(circlesOf(files, graph), []);
  });

  it('no circle of imports (type-only ones too) among the files of one folder', () => {
    const graph = new Map<string, string[]>();
    for (const e of edges)
      if (dirname(e.from) === dirname(e.to))
        graph.set(e.from, [...new Set([...(graph.get(e.from) ?? []), e.to])]);
    assert.deepEqual(circlesOf(files, graph), []);
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

  it("the controller's programs are rooms: folders with a door, nothing else beside the controller's door", () => {
    const entries = readdirSync(controller);
    const folders = entries.filter((e) => statSync(join(controller, e)).isDirectory());
    assert.deepEqual(
      folders.sort(),
      Object.keys(CONTROLLER_ROOMS).sort(),
      'rooms here and in docs/architecture.md',
    );
    assert.deepEqual(
      entries.filter((e) => !folders.includes(e)),
      ['index.ts'],
    );
    for (const room of folders) assert.ok(existsSync(join(controller, room, 'index.ts')), `${room}/index.ts`);
  });

  it('controller rooms import only the rooms below them, through their doors', () => {
    const wrong = edges.flatMap(({ from, to }) => {
      const a = roomOf(from);
      const b = roomOf(to);
      if (a === undefined || a === b) return [];
      const why =
        b === undefined
          ? moduleOf(to) === 'controller' && 'the controller door' // a room never imports the outer door
          : !(CONTROLLER_ROOMS[a] ?? []).includes(b)
            ? `room ${b}`
            : !to.endsWith(`/${b}/index.ts`) && `${b} not through its door`;
      return why ? [`${relative(src, from)} -> ${relative(src, to)} (${why})`] : [];
    });
    assert.deepEqual(wrong, []);
    // The outer door hands on the rooms' doors, nothing from inside a room.
    const deep = edges.flatMap(({ from, to }) =>
      from === join(controller, 'index.ts') && !to.endsWith('/index.ts') ? [relative(src, to)] : [],
    );
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

  it('a file over 400 lines says why at its top (CONTRIBUTING.md: split by idea before 400 lines)', () => {
    const long = files.flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
      return lines > 400 && !text.startsWith('// Over 400 lines: ')
        ? [`${relative(src, file)} (${lines})`]
        : [];
    });
    assert.deepEqual(long, []);
  });

  it('finds the imports it checks (the checks cannot pass on an empty graph)', () => {
    assert.ok(edges.some((e) => e.typeOnly));
    assert.ok(edges.some((e) => moduleOf(e.from) === 'controller' && moduleOf(e.to) === 'cluster'));
    assert.ok(edges.some((e) => roomOf(e.from) === 'loop' && roomOf(e.to) === 'refresh'));
    assert.ok(edges.some((e) => e.typeOnly && dirname(e.from) === dirname(e.to)));
  });
});
