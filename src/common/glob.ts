/**
 * Globs as Argo CD matches API groups, kinds, cluster URLs and override keys (argo-cd `util/glob`, which
 * compiles gobwas/glob patterns without separators): `*` any run of characters (also "/"), `?` one,
 * `[abc]`/`[!abc]`/`[a-z]` classes, `{a,b}` alternatives, `\x` a literal. A pattern that does not compile
 * matches only itself, as Argo CD falls back to equality.
 */

/** Compiled patterns: a few settings' patterns are matched against every resource of every app. */
const compiled = new Map<string, RegExp | undefined>();

/** gobwas/glob syntax as a RegExp; undefined when the pattern does not compile (then only equality matches). */
export function globRegExp(pattern: string): RegExp | undefined {
  if (compiled.has(pattern)) return compiled.get(pattern);
  const re = compile(pattern);
  if (compiled.size < 1000) compiled.set(pattern, re);
  return re;
}

function compile(pattern: string): RegExp | undefined {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') out += '.*';
    else if (c === '?') out += '.';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end < 0) return undefined;
      let body = pattern.slice(i + 1, end);
      if (body.startsWith('!')) body = `^${body.slice(1)}`;
      out += `[${body.replace(/\\/g, '\\\\')}]`;
      i = end;
    } else if (c === '{') {
      const end = pattern.indexOf('}', i + 1);
      if (end < 0) return undefined;
      const alts = pattern.slice(i + 1, end).split(',');
      out += `(?:${alts
        .map((a) =>
          a
            .replace(/[.+^$()|\\]/g, '\\$&')
            .replace(/\*/g, '.*')
            .replace(/\?/g, '.'),
        )
        .join('|')})`;
      i = end;
    } else if (c === '\\' && i + 1 < pattern.length) {
      out += `\\${pattern[++i]!}`;
    } else out += c.replace(/[.+^$()|\]}]/g, '\\$&');
  }
  try {
    return new RegExp(`^${out}$`, 's');
  } catch {
    return undefined;
  }
}

/** argo-cd `util/glob.Match`. */
export function globMatch(pattern: string, text: string): boolean {
  if (pattern === text) return true;
  return globRegExp(pattern)?.test(text) ?? false;
}
