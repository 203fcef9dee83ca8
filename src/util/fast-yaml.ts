/**
 * A fast path for the plainest YAML, the bulk of what renders produce: `yaml`'s `parseAllDocuments`
 * builds a full document tree (about 0.3 ms per ConfigMap; 10,000 objects of a 1,000-app preview spent
 * seconds in it), js-yaml reads the same text about ten times faster. Results must not change, so the fast
 * path reads only text where both agree, and answers undefined (the caller parses with `yaml`) otherwise:
 * - plain scalars resolve as `yaml` resolves them with yaml-docs.ts `KUBE_YAML_OPTIONS` (its yaml-1.1
 *   schema without timestamps, as Kubernetes' go-yaml v2 reads YAML): null, bool (`y`, `yes`, `on`, `n`,
 *   `no`, `off`...), int (binary, octal `0755`, decimal, hex, `_` allowed), float, the same tests in the same
 *   order, so `1.10`, `010`, `yes` and `0b1` read as they do there;
 * - duplicate keys: the last wins, as `yaml` with `uniqueKeys: false`;
 * - text holding anchors, aliases, tags, merge keys or directives (`&`, `*`, `!`, `<<`, a line starting with
 *   `%`), a null, empty, explicit (`?`) or collection mapping key (`{{ .Values.x }}` is one), or a tab, is
 *   left to `yaml` (its alias limit, its own key rules);
 * - any js-yaml error is left to `yaml` (it writes the error messages users see).
 * test/util/fast-yaml.test.ts compares both parsers on every YAML fixture of the project and edge cases.
 */
import { FAILSAFE_SCHEMA, loadAll, Type } from 'js-yaml';

interface Rule {
  test: RegExp;
  construct: (s: string) => unknown;
}

/** One js-yaml type per tag (js-yaml keeps the last type of a tag): `yaml`'s rules of that tag, in order. */
const scalar = (tag: string, rules: Rule[]): Type =>
  new Type(tag, {
    kind: 'scalar',
    resolve: (data: string | null) => data !== null && rules.some((r) => r.test.test(data)),
    construct: (data: string) => rules.find((r) => r.test.test(data))!.construct(data),
  });

/** `yaml`'s yaml-1.1 integer resolution (node_modules/yaml/dist/schema/yaml-1.1/int.js): sign, `_` dropped. */
function int11(offset: number, radix: number): (s: string) => number {
  return (s) => {
    const sign = s[0];
    const n = parseInt(s.slice(sign === '-' || sign === '+' ? offset + 1 : offset).replace(/_/g, ''), radix);
    return sign === '-' ? -1 * n : n;
  };
}

const float11 = (s: string): number => parseFloat(s.replace(/_/g, ''));

// How manifests are read (yaml-docs.ts KUBE_YAML_OPTIONS: `yaml`'s yaml-1.1 schema without timestamps, as
// Kubernetes' go-yaml v2 reads YAML): null, bool (y/yes/on... and n/no/off...), int (binary, octal, decimal,
// hex, `_` allowed), float (nan, exp, plain), in `yaml`'s order (node_modules/yaml/dist/schema/yaml-1.1).
const KUBE = FAILSAFE_SCHEMA.extend({
  implicit: [
    scalar('tag:yaml.org,2002:null', [{ test: /^(?:~|[Nn]ull|NULL)?$/, construct: () => null }]),
    scalar('tag:yaml.org,2002:bool', [
      { test: /^(?:Y|y|[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)$/, construct: () => true },
      { test: /^(?:N|n|[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)$/, construct: () => false },
    ]),
    scalar('tag:yaml.org,2002:int', [
      { test: /^[-+]?0b[0-1_]+$/, construct: int11(2, 2) },
      { test: /^[-+]?0[0-7_]+$/, construct: int11(1, 8) },
      { test: /^[-+]?[0-9][0-9_]*$/, construct: int11(0, 10) },
      { test: /^[-+]?0x[0-9a-fA-F_]+$/, construct: int11(2, 16) },
    ]),
    scalar('tag:yaml.org,2002:float', [
      {
        test: /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
        construct: (s) => (s.slice(-3).toLowerCase() === 'nan' ? NaN : s[0] === '-' ? -Infinity : Infinity),
      },
      { test: /^[-+]?(?:[0-9][0-9_]*)?(?:\.[0-9_]*)?[eE][-+]?[0-9]+$/, construct: float11 },
      { test: /^[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*$/, construct: float11 },
    ]),
  ],
});

/** Anything the fast path leaves to `yaml` (see the header). */
const UNSUPPORTED = new RegExp(
  [
    '[&*!\\t]|<<|^%', // anchors, aliases, tags, tabs, merge keys, directives
    '^\\s*(?:-\\s+)*(?:~|null|Null|NULL)?\\s*:(?:\\s|$)', // a null or empty key
    '^\\s*(?:-\\s+)*\\?(?:\\s|$)', // an explicit key
    '[{[]\\s*[{[]', // a flow collection inside one (a collection as a key: `{{ .Values.x }}`)
    '^\\s*(?:-\\s+)*[{[].*[}\\]]\\s*:(?:\\s|$)', // a flow collection as a block key
  ].join('|'),
  'm',
);

/** The documents of `text` as `yaml` would read them (toJS), or undefined: parse it with `yaml`. */
export function fastParseAll(text: string): unknown[] | undefined {
  if (UNSUPPORTED.test(text)) return undefined;
  try {
    return loadAll(text, undefined, { schema: KUBE, json: true });
  } catch {
    return undefined;
  }
}

/**
 * The documents of `text` by the fast path, each at the index `yaml` gives it (every document non-empty:
 * as many as `---` separators say), and with `withText` each also read with every plain scalar as its text
 * (what `yaml-docs.ts` restores for fields kept as written); undefined: parse it with `yaml`.
 */
export function fastParseDocuments(
  text: string,
  withText: boolean,
): { values: unknown[]; texts?: unknown[] } | undefined {
  const values = fastParseAll(text);
  if (!values || values.length !== separatedDocuments(text)) return undefined;
  if (values.some((v) => v === null || v === undefined)) return undefined;
  if (!withText) return { values };
  try {
    const texts = loadAll(text, undefined, { schema: FAILSAFE_SCHEMA, json: true });
    return texts.length === values.length ? { values, texts } : undefined;
  } catch {
    return undefined;
  }
}

/** Documents by their `---` lines (and content before the first); -1 with a `...` end marker (unsure). */
function separatedDocuments(text: string): number {
  let count = 0;
  let content = false;
  for (const line of text.split('\n')) {
    if (/^\.\.\.(\s|$)/.test(line)) return -1;
    if (/^---(\s|$)/.test(line)) {
      count++;
      content = true;
    } else if (!content && line.trim() !== '' && !line.trimStart().startsWith('#')) {
      count++;
      content = true;
    }
  }
  return count;
}
