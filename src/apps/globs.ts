/**
 * The three pattern languages AppProjects use, each as Argo CD's Go code matches them (a pattern that does
 * not compile matches nothing, as there):
 * - `globMatch(pattern, text, separators)`: gobwas/glob, behind Argo CD's `util/glob` `Match`. `*` is any
 *   run of characters other than the separators, `**` any run at all, `?` one non-separator character,
 *   `[abc]`, `[a-z]`, `[!abc]` classes, `{a,b}` alternatives, `\` escapes the next character.
 * - `pathMatch(pattern, text)`: Go's `path/filepath.Match` (group/kind/name entries of the resource lists,
 *   `isResourceInList` / `isNamedResourceInList` in `pkg/apis/application/v1alpha1/types.go`): `*` never
 *   crosses `/`, classes negate with `^`, the whole text must match.
 * - `matchStringInList(list, text)`: `util/glob/list.go MatchStringInList` with REGEXP: an entry wrapped in
 *   `/` is an unanchored regular expression, any other entry a gobwas glob.
 * Compiled patterns are cached (projects repeat the same few patterns for every resource).
 */

const cache = new Map<string, RegExp | null>();

function cached(key: string, compile: () => RegExp | null): RegExp | null {
  let re = cache.get(key);
  if (re === undefined) {
    try {
      re = compile();
    } catch {
      re = null;
    }
    if (cache.size > 10_000) cache.clear();
    cache.set(key, re);
  }
  return re;
}

const escapeRe = (c: string): string => c.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
/** Inside a class (unicode mode allows `\-` there only). */
const escapeClass = (c: string): string => c.replace(/[\\^\][-]/g, '\\$&');

/** A `[...]` class starting at `i` (after `[`): its regex and the index after `]`; throws when unclosed. */
function charClass(pattern: string, i: number, negation: string): [string, number] {
  let out = '[';
  if (negation.includes(pattern[i] ?? '')) {
    out += '^';
    i++;
  }
  let first = true;
  for (; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === ']' && !first) return [`${out}]`, i + 1];
    first = false;
    if (c === '\\') {
      i++;
      if (i >= pattern.length) break;
      out += escapeClass(pattern[i]!);
    } else if (c === '-') out += '-';
    else out += escapeClass(c);
  }
  throw new Error('unclosed character class');
}

/** gobwas/glob syntax -> regex source (no anchors). */
function gobwasSource(pattern: string, notSep: string, inAlternatives = false): [string, number] {
  let out = '';
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === '*') {
      if (pattern[i + 1] === '*') {
        out += '[\\s\\S]*';
        i += 2;
      } else {
        out += `${notSep}*`;
        i++;
      }
    } else if (c === '?') {
      out += notSep;
      i++;
    } else if (c === '[') {
      const [cls, next] = charClass(pattern, i + 1, '!');
      out += cls;
      i = next;
    } else if (c === '{') {
      const alternatives: string[] = [];
      let rest = pattern.slice(i + 1);
      let consumed = i + 1;
      for (;;) {
        const [alt, used] = gobwasSource(rest, notSep, true);
        alternatives.push(alt);
        consumed += used;
        const stop = pattern[consumed];
        if (stop === ',') {
          consumed++;
          rest = pattern.slice(consumed);
          continue;
        }
        if (stop === '}') {
          consumed++;
          break;
        }
        throw new Error('unclosed alternatives');
      }
      out += `(?:${alternatives.join('|')})`;
      i = consumed;
    } else if (inAlternatives && (c === ',' || c === '}')) {
      return [out, i];
    } else if (c === '\\') {
      if (i + 1 >= pattern.length) throw new Error('trailing escape');
      out += escapeRe(pattern[i + 1]!);
      i += 2;
    } else {
      out += escapeRe(c);
      i++;
    }
  }
  if (inAlternatives) return [out, i];
  return [out, i];
}

/** gobwas/glob `Match` (Argo CD `util/glob.Match`) with optional separators for `*` and `?`. */
export function globMatch(pattern: string, text: string, separators = ''): boolean {
  const re = cached(`g${separators}\0${pattern}`, () => {
    const notSep = separators ? `[^${escapeRe(separators)}]` : '[\\s\\S]';
    return new RegExp(`^${gobwasSource(pattern, notSep)[0]}$`, 'u');
  });
  return re !== null && re.test(text);
}

/** Go `path/filepath.Match` on Unix (`/` separates; a malformed pattern matches nothing). */
export function pathMatch(pattern: string, text: string): boolean {
  const re = cached(`p\0${pattern}`, () => {
    let out = '';
    for (let i = 0; i < pattern.length;) {
      const c = pattern[i]!;
      if (c === '*') {
        out += '[^/]*';
        i++;
      } else if (c === '?') {
        out += '[^/]';
        i++;
      } else if (c === '[') {
        const [cls, next] = charClass(pattern, i + 1, '^');
        out += cls;
        i = next;
      } else if (c === '\\') {
        if (i + 1 >= pattern.length) throw new Error('trailing escape');
        out += escapeRe(pattern[i + 1]!);
        i += 2;
      } else {
        out += escapeRe(c);
        i++;
      }
    }
    return new RegExp(`^${out}$`, 'u');
  });
  return re !== null && re.test(text);
}

/** `MatchStringInList(list, text, REGEXP)`: `/re/` entries as unanchored regexes, others as globs. */
export function matchStringInList(list: readonly string[], text: string): boolean {
  return list.some((entry) => {
    if (entry.length >= 2 && entry.startsWith('/') && entry.endsWith('/')) {
      const re = cached(`r\0${entry}`, () => new RegExp(entry.slice(1, -1), 'u'));
      if (re?.test(text)) return true;
    }
    return globMatch(entry, text);
  });
}

/** An entry of such a list that names one namespace only (no glob character, not a /regexp/). */
export function isLiteralPattern(p: string): boolean {
  return !/[*?[\]{}\\]/.test(p) && !(p.startsWith('/') && p.endsWith('/'));
}
