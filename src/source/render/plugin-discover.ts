/**
 * Which config management plugin renders a source, as Argo CD decides it (util/app/discovery/discovery.go
 * `DetectConfigManagementPlugin`, `cmpSupports`; cmpserver/plugin/plugin.go `matchRepository`):
 * - a plugin's discovery, first rule set wins: `discover.fileName`, a Go `filepath.Glob` pattern joined to
 *   the source directory (`*`, `?` and `[...]` within one path segment; dot files match); else
 *   `discover.find.glob`, the same joined pattern read as mattn/go-zglob reads it (`**` followed by a slash
 *   crosses directories, `*` stays in a segment, `{a,b}` alternatives, `[...]` classes, `?` is a plain
 *   character; files and directories match); else `discover.find.command`, run in the source directory,
 *   which matches when it exits 0 and prints something other than a single newline;
 * - a named plugin (`plugin.name`) is the configuration whose identity (`<name>-<version>` or `<name>`) is
 *   that name. Without discovery rules it is used as is; with them they must match ("could not find
 *   cmp-server plugin with name ... supporting the given repository");
 * - without a name, every plugin with discovery rules is tried in the order of their socket file names
 *   (`<identity>.sock`, byte order, as `os.ReadDir` lists them); the first that matches is used.
 */
import { lstatSync, readdirSync } from 'node:fs';
import { join, normalize, posix } from 'node:path';
import { discoveryConfigured, type PluginConfig } from '../../apps/index.js';

/** One character as a literal of a regular expression (outside a class). */
const lit = (c: string) => c.replace(/[\\^$.*+?()[\]{}|/]/g, (x) => `\\${x}`);
/** One character as a literal inside a class. */
const litClass = (c: string) => c.replace(/[\\^\][-]/g, (x) => `\\${x}`);

/** Go `filepath.Match` of one path segment as a RegExp (throws on a malformed pattern, ErrBadPattern). */
export function goSegmentRegExp(segment: string): RegExp {
  let re = '';
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i]!;
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '\\') {
      if (i + 1 >= segment.length) throw new Error(`syntax error in pattern ${segment}`);
      re += lit(segment[++i]!);
    } else if (c === '[') {
      let j = i + 1;
      let cls = '';
      if (segment[j] === '^') {
        cls += '^';
        j++;
      }
      let first = true;
      while (j < segment.length && (segment[j] !== ']' || first)) {
        first = false;
        if (segment[j] === '\\') j++;
        if (j >= segment.length) break;
        const ch = segment[j]!;
        cls += ch === '-' ? '-' : litClass(ch);
        j++;
      }
      if (j >= segment.length) throw new Error(`syntax error in pattern ${segment}`);
      re += `[${cls}]`;
      i = j;
    } else re += lit(c);
  }
  return new RegExp(`^${re}$`, 'u');
}

const hasGoMeta = (s: string) => /[*?[\\]/.test(s);

const exists = (path: string) => {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
};

const entries = (dir: string): string[] => {
  try {
    return readdirSync(dir).sort();
  } catch {
    return []; // not a directory, or unreadable: Go's glob ignores it
  }
};

/** Go `filepath.Glob` of an absolute pattern: matching paths (files or directories). */
export function goGlob(pattern: string): string[] {
  const clean = normalize(pattern);
  if (!hasGoMeta(clean)) return exists(clean) ? [clean] : [];
  let paths = ['/'];
  for (const segment of clean.split('/').filter(Boolean)) {
    if (!hasGoMeta(segment)) {
      paths = paths.map((p) => join(p, segment)).filter(exists);
      continue;
    }
    const re = goSegmentRegExp(segment);
    paths = paths.flatMap((p) =>
      entries(p)
        .filter((e) => re.test(e))
        .map((e) => join(p, e)),
    );
  }
  return paths;
}

/** A go-zglob pattern (absolute, cleaned) as a RegExp over slash paths, and the directory to walk from. */
export function zglobRegExp(pattern: string): { root: string | undefined; re: RegExp } {
  const segments = pattern.split('/');
  const first = segments.findIndex((s) => /[*{]/.test(s));
  const root = first < 0 ? undefined : segments.slice(0, first).join('/') || '/';
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i < pattern.length - 2) re += lit(pattern[++i]!);
    else if (c === '*') {
      if (pattern[i + 1] === '*' && pattern[i + 2] === '/') {
        re += '(.*/)?';
        i += 2;
      } else re += '[^/]*';
    } else if (c === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end < 0) re += lit(c);
      else {
        re += end > i + 1 ? `[${pattern.slice(i + 1, end)}]` : '';
        i = end;
      }
    } else if (c === '{') {
      const end = pattern.indexOf('}', i + 1);
      const body = pattern.slice(i + 1, end < 0 ? undefined : end);
      re += `(${body
        .split(',')
        .map((alt) => [...alt].map((x) => (/[A-Za-z0-9/]/.test(x) ? x : lit(x))).join(''))
        .join('|')})`;
      i = end < 0 ? pattern.length : end;
    } else re += /[A-Za-z0-9/]/.test(c) ? c : lit(c);
  }
  return { root, re: new RegExp(`^${re}$`, 'u') };
}

/** Whether anything under the pattern's root matches a go-zglob pattern (absolute). */
export function zglobMatches(pattern: string): boolean {
  const clean = normalize(pattern);
  const { root, re } = zglobRegExp(clean);
  if (root === undefined) return exists(clean);
  const walk = (dir: string): boolean => {
    for (const name of entries(dir)) {
      const path = posix.join(dir, name);
      if (re.test(path)) return true;
      let isDir = false;
      try {
        isDir = lstatSync(path).isDirectory(); // symlinked directories are not followed
      } catch {
        // vanished
      }
      if (isDir && walk(path)) return true;
    }
    return false;
  };
  return walk(root);
}

export type FindCommand = (plugin: PluginConfig) => Promise<boolean>;

/**
 * Whether `plugin` supports the source in `appDir` (`matchRepository`): [supported, discoveryEnabled].
 * `find` runs the plugin's find command (it needs a copy of the repository and the environment).
 */
export async function matchPlugin(
  plugin: PluginConfig,
  appDir: string,
  find: FindCommand,
): Promise<{ supported: boolean; discoveryEnabled: boolean }> {
  const d = plugin.discover;
  if (d.fileName) return { supported: goGlob(join(appDir, d.fileName)).length > 0, discoveryEnabled: true };
  if (d.glob) return { supported: zglobMatches(join(appDir, d.glob)), discoveryEnabled: true };
  if (d.command) return { supported: await find(plugin), discoveryEnabled: true };
  return { supported: false, discoveryEnabled: false };
}

/** The plugins tried when no name is given: those with discovery rules, in socket-file order. */
export function discoveryOrder(plugins: readonly PluginConfig[]): PluginConfig[] {
  return plugins
    .filter(discoveryConfigured)
    .sort((a, b) => Buffer.compare(Buffer.from(`${a.id}.sock`), Buffer.from(`${b.id}.sock`)));
}

/**
 * The plugin that renders the source, or a reason none does: `named` when the app names a plugin, else
 * the first plugin whose discovery matches (undefined when none does).
 */
export async function detectPlugin(
  plugins: readonly PluginConfig[],
  named: string,
  appDir: string,
  find: FindCommand,
): Promise<PluginConfig | { missing: string }> {
  if (named) {
    const plugin = plugins.find((p) => p.id === named);
    if (!plugin) return { missing: `no plugin is named "${named}"` };
    if (!discoveryConfigured(plugin)) return plugin;
    const m = await matchPlugin(plugin, appDir, find);
    return m.supported
      ? plugin
      : { missing: `plugin "${named}" (${plugin.origin}) does not match this source by its discover rules` };
  }
  for (const plugin of discoveryOrder(plugins)) {
    if ((await matchPlugin(plugin, appDir, find)).supported) return plugin;
  }
  return { missing: 'no plugin matches this source by its discover rules' };
}
