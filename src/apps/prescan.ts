/**
 * The pre-scan of app files (issue 23, "diff of one app of 1,000"): when app names are given, a file whose
 * text cannot hold an Application of those names, an ApplicationSet or an AppProject is not parsed.
 *
 * `mayHold(text, scan)` is a superset test on the file's text, never a parse: it says false only when no
 * parse of the text could give a document of kind ApplicationSet or AppProject, nor an Application whose
 * `metadata.name` is one of the names. Why the text tells (YAML 1.2 and JSON, which is YAML):
 * - Without a backslash, a scalar's value is its text as written, except that line breaks inside plain,
 *   quoted and folded scalars become spaces (and `''` in single quotes becomes `'`). A Kubernetes name has
 *   no space or quote, so a value equal to a name is written as that name, letter for letter; anchors,
 *   aliases, merge keys and tags only reuse or label text that is in the same file. So a file holding the
 *   name holds it as a token: not preceded or followed by a name character (`[A-Za-z0-9_.-]`: any of those
 *   next to it would belong to the same scalar, whose value would then be longer).
 * - A backslash may be an escape in a double-quoted scalar (`"app-\x37"`, `"\u0041pplication"`, an escaped
 *   line break joining two lines): such a file is always parsed.
 * - The kinds: `kind: Application` (or a typed `ApplicationList`, whose items take the kind) contains the
 *   text "Application"; ApplicationSet and AppProject likewise contain their names.
 * Names are only pre-scanned when they are Kubernetes object names (`namespace/name` arguments: the name
 * part); any other argument turns the pre-scan off (`prescanOf` returns undefined). The caller parses every
 * file when a name is not found among the parsed Applications (an app an ApplicationSet generates, a typo:
 * the error then lists every known app as before), so the selection is exactly a full parse's.
 * What a pre-scanned read does not do, by design: report YAML errors, invalid Applications, skipped kinds
 * and duplicates in the files it leaves unparsed, nor the "no Application in PATH" error for a path whose
 * unparsed files mention Applications (docs/scale.md).
 */

/** A Kubernetes object name (DNS subdomain: lowercase letters, digits, '-', '.'). */
const OBJECT_NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const NAME_CHAR = /[A-Za-z0-9_.-]/;

/** The names a pre-scan looks for. */
export interface Prescan {
  /** The arguments as given (`name` or `namespace/name`). */
  args: readonly string[];
  /** Their name parts. */
  names: readonly string[];
}

/** The pre-scan of the name arguments (`name` or `namespace/name`), or undefined when it cannot apply. */
export function prescanOf(args: readonly string[]): Prescan | undefined {
  if (args.length === 0) return undefined;
  const names: string[] = [];
  for (const arg of args) {
    const parts = arg.split('/');
    if (parts.length > 2 || !parts.every((p) => OBJECT_NAME.test(p))) return undefined;
    names.push(parts.at(-1)!);
  }
  return { args, names };
}

/** `name` occurs in `text` as a token (see the header). */
function hasToken(text: string, name: string): boolean {
  for (let at = text.indexOf(name); at !== -1; at = text.indexOf(name, at + 1)) {
    const before = at === 0 ? '' : text[at - 1]!;
    const after = text[at + name.length] ?? '';
    if (!NAME_CHAR.test(before) && !NAME_CHAR.test(after)) return true;
  }
  return false;
}

/**
 * The text of a file left unparsed mentions Applications: a path whose unparsed files do counts as holding
 * apps for the "no Application in PATH" check; one whose files do not is read in full.
 */
export function mentionsApps(text: string): boolean {
  return text.includes('Application');
}

/** False only when no parse of `text` can give a named Application, an ApplicationSet or an AppProject. */
export function mayHold(text: string, scan: Prescan): boolean {
  if (text.includes('\\')) return true;
  if (text.includes('ApplicationSet') || text.includes('AppProject')) return true;
  if (!text.includes('Application')) return false;
  return scan.names.some((name) => hasToken(text, name));
}
