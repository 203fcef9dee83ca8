/**
 * Turns anything a command threw into the lines the user sees on stderr, and an exit code.
 *
 * Every error is one line `error: <subject>: <reason>` (GitopsError messages already are), followed by at
 * most one `hint:` line that fits the error:
 * - oclif's own parser errors ("Nonexistent flag: --x", "Expected --output=foo to be one of: ...", "command
 *   dif not found", ...) are rewritten into that form, naming the flag, value or command as the subject;
 *   an unknown command or flag gets "did you mean ...?" when one is close (cobra's rule, as kubectl: edit
 *   distance at most 2, or the typed word is a prefix);
 * - an RBAC refusal (403 Forbidden) names the verb and resource denied and the `kubectl auth can-i` check;
 * - a missing file or folder names the absolute path that was looked up and the working directory;
 * - other usage errors point at the command's `--help`;
 * - a run that failed (`RunFailure`, src/common/outcome.ts) shows every error it had, one line each, in
 *   order; the last one is rendered as above (with its hint).
 * Stack traces are printed only with --debug (or DEBUG=kubectl-gitops*), never by default.
 */
import { resolve } from 'node:path';
import { ExitCode, GitopsError, RunFailure, UsageError, oneLine } from '../common/index.js';

interface OclifLikeError {
  oclif?: { exit?: number };
  code?: string;
  skipOclifErrorHandling?: boolean;
}

/** What "did you mean" may suggest: the command names, and the flags of the command that failed. */
export interface Vocabulary {
  commands: readonly string[];
  /** Long flag names (without dashes) of the command, aliases included. */
  flags?: readonly string[];
}

export function wantsDebug(argv: readonly string[]): boolean {
  return argv.includes('--debug') || /kubectl-gitops|\*/.test(process.env['DEBUG'] ?? '');
}

export function exitCodeOf(err: unknown): number {
  if (err instanceof GitopsError) return err.exitCode;
  const o = err as OclifLikeError | null;
  if (o && typeof o === 'object' && o.oclif && typeof o.oclif.exit === 'number') return o.oclif.exit;
  return ExitCode.FAILURE;
}

/** Levenshtein distance (small words only: command and flag names). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

/** The candidates cobra would suggest for `typed` (kubectl's "Did you mean this?"), closest first. */
export function suggestions(typed: string, candidates: readonly string[]): string[] {
  const word = typed.toLowerCase();
  return candidates
    .map((c) => ({ c, d: editDistance(word, c.toLowerCase()) }))
    .filter(({ c, d }) => d <= 2 || (word.length > 0 && c.toLowerCase().startsWith(word)))
    .sort((x, y) => x.d - y.d || x.c.localeCompare(y.c))
    .map(({ c }) => c);
}

interface Rewritten {
  message: string;
  hint?: string;
}

const lowerFirst = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1);

/**
 * oclif's parser messages, as `<subject>: <reason>`. Several span lines ("Parsing --replicas" then a
 * tab-indented reason, "See more help with --help"): the lines are folded first.
 */
function rewriteOclif(err: unknown, vocabulary: Vocabulary | undefined, help: string): Rewritten {
  const text = err instanceof Error ? err.message : String(err);
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && l !== 'The following error occurred:' && !/^See more help with/.test(l));
  const joined = lines.join(': ');
  let m: RegExpMatchArray | null;
  const didYouMean = (typed: string, candidates: readonly string[], prefix: string): string | undefined => {
    const close = suggestions(typed, candidates).slice(0, 3);
    return close.length > 0 ? `did you mean ${close.map((c) => `'${prefix}${c}'`).join(' or ')}?` : undefined;
  };
  if ((m = joined.match(/^command (\S+) not found$/))) {
    const hint = didYouMean(m[1]!.replace(/:/g, ' '), vocabulary?.commands ?? [], 'kubectl gitops ');
    return {
      message: `${m[1]!.replace(/:/g, ' ')}: unknown command`,
      hint: hint ? `${hint} (see 'kubectl gitops --help')` : "see 'kubectl gitops --help'",
    };
  }
  if ((m = joined.match(/^Nonexistent flags?: (.+)$/))) {
    const typed = m[1]!.split(/,\s*/);
    const first = typed[0]!.replace(/^-+/, '').replace(/=.*$/, '');
    const hint = didYouMean(first, vocabulary?.flags ?? [], '--');
    return {
      message: `${typed.join(', ')}: unknown flag${typed.length > 1 ? 's' : ''}`,
      hint: hint ? `${hint} (see ${help})` : `see ${help}`,
    };
  }
  if ((m = joined.match(/^Parsing (--\S+): (.+)$/))) return { message: `${m[1]}: ${lowerFirst(m[2]!)}` };
  if ((m = joined.match(/^Flag (--\S+) expects a value$/))) return { message: `${m[1]}: missing value` };
  if ((m = joined.match(/^Missing required flags? (.+)$/)))
    return {
      message: `${m[1]!
        .split(/,\s*/)
        .map((f) => `--${f.replace(/^-+/, '')}`)
        .join(', ')}: missing required flag`,
    };
  if ((m = joined.match(/^Expected (--[^=\s]+)=(.*) to be one of: (.+)$/)))
    return { message: `${m[1]} ${m[2]}: not one of: ${m[3]}` };
  if ((m = joined.match(/^All of the following must be provided when using (--\S+): (.+)$/)))
    return { message: `${m[1]}: needs ${m[2]} too` };
  if ((m = joined.match(/^(--[^=\s]+)(?:=\S*)? cannot also be provided when using (--\S+)$/)))
    return { message: `${m[1]}: cannot be used with ${m[2]}` };
  if ((m = joined.match(/^Unexpected arguments?: (.+)$/))) return { message: `${m[1]}: unexpected argument` };
  return { message: lowerFirst(joined) };
}

/** For a 403 Forbidden from the API server: the verb and resource denied, and how to check. */
function rbacHint(err: GitopsError): string | undefined {
  const api = err as GitopsError & { code?: unknown; status?: { message?: string } };
  if (api.code !== 403) return undefined;
  const said = api.status?.message ?? err.message;
  const m = said.match(
    /cannot (\S+) resource "([^"]+)" in API group "([^"]*)"(?: in the namespace "([^"]+)")?/,
  );
  if (!m) return 'the API server refused the request (403 Forbidden): check your RBAC permissions';
  const [, verb, resource, group, namespace] = m;
  const res = group ? `${resource}.${group}` : resource!;
  const where = namespace ? ` in namespace ${namespace}` : ' (cluster-wide)';
  return `RBAC denies '${verb}' on ${res}${where}; check with 'kubectl auth can-i ${verb} ${res}${namespace ? ` -n ${namespace}` : ''}'`;
}

/** For a missing file or folder: the absolute path looked up, and where relative paths start. */
function missingPathHint(err: GitopsError): string | undefined {
  const cause = err.cause as { code?: unknown; path?: unknown } | undefined;
  const missing =
    cause?.code === 'ENOENT' || /: no such (file|directory|file or directory)$/.test(err.message);
  if (!missing) return undefined;
  const path =
    typeof cause?.path === 'string'
      ? cause.path
      : err.subject
          ?.replace(/^--\S+\s+/, '')
          .replace(/\s+\(document \d+\)$/, '')
          .trim();
  if (!path) return undefined;
  const absolute = resolve(path);
  return absolute === path
    ? `nothing exists at ${absolute}: check the path`
    : `${absolute} does not exist (relative paths start at ${process.cwd()})`;
}

/** Renders the error for the terminal. Returns the lines so tests can check them without a process. */
export function formatError(
  err: unknown,
  argv: readonly string[],
  commandId?: string,
  vocabulary?: Vocabulary,
): string[] {
  if (err instanceof RunFailure) {
    const lines = formatError(err.last, argv, commandId, vocabulary);
    return [...err.earlier.map((line) => `error: ${line}`), ...lines];
  }
  const known = commandId !== undefined && (vocabulary?.commands ?? [commandId]).includes(commandId);
  const help = `'kubectl gitops ${known ? `${commandId} ` : ''}--help'`;
  let message: string;
  let hint: string | undefined;
  if (err instanceof GitopsError) {
    message = oneLine(err);
    hint = err.hint ?? rbacHint(err) ?? missingPathHint(err);
  } else {
    ({ message, hint } = rewriteOclif(err, vocabulary, help));
  }
  // Only a usage error points at --help: a runtime failure (unreachable server, no Argo CD) shares exit
  // code 2 but no flag or argument of the command line would fix it.
  const usage = err instanceof UsageError || !(err instanceof GitopsError);
  if (!hint && usage && exitCodeOf(err) === ExitCode.USAGE) hint = `see ${help}`;
  const lines = [`error: ${message}`];
  if (hint) lines.push(`hint: ${hint}`);
  if (wantsDebug(argv) && err instanceof Error && err.stack) lines.push(err.stack);
  return lines;
}
