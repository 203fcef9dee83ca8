/**
 * Kubeconfig loading and destination resolution.
 *
 * Precedence (as kubectl): `--kubeconfig FILE` > `KUBECONFIG` (path list, merged, the first file's
 * current-context wins) > `~/.kube/config` > the in-cluster service account; `--context NAME` then
 * overrides the current context. Finding none of them is a UsageError (never a silent localhost:8080).
 * `@kubernetes/client-node` (its KubeConfig module, see importKubeConfig) is imported lazily here, so
 * commands that never talk to a cluster never load it.
 *
 * An Application destination resolves to a context: `server: https://kubernetes.default.svc` (or
 * `name: in-cluster`) means the current context; otherwise `name` matches a context name, then a cluster
 * name, and `server` matches a cluster's server URL (trailing "/" ignored), preferring the current context.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { KubeConfig } from '@kubernetes/client-node';
import { GitopsError, oneLine, UsageError } from '../common/index.js';

const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

export const IN_CLUSTER_SERVER = 'https://kubernetes.default.svc';
export const IN_CLUSTER_NAME = 'in-cluster';

export interface KubeConfigOptions {
  /** `--kubeconfig`: one file; wins over KUBECONFIG. */
  kubeconfig?: string | undefined;
  /** `--context`: overrides the file's current-context. */
  context?: string | undefined;
}

export interface Destination {
  server?: string | undefined;
  name?: string | undefined;
}

/**
 * client-node's KubeConfig, imported from its own module rather than the package index: the index re-exports
 * every generated API client and model (about 14 MB of JavaScript), and KubeConfig is all we use. Loaded
 * lazily, as the header says. The bundles (scripts/esbuild-client-node.mjs) also cut config.js's import of
 * the generated index down to the two names it uses.
 */
function importKubeConfig(): Promise<{ KubeConfig: typeof KubeConfig }> {
  return import('@kubernetes/client-node/dist/config.js');
}

export async function loadKubeConfig(options: KubeConfigOptions = {}): Promise<KubeConfig> {
  const { KubeConfig } = await importKubeConfig();
  const kc = new KubeConfig();
  const source = options.kubeconfig || process.env['KUBECONFIG'] || '~/.kube/config';
  if (!options.kubeconfig && !process.env['KUBECONFIG'] && !existsSync(join(homedir(), '.kube', 'config'))) {
    // client-node would fall back to the in-cluster service account, then silently to localhost:8080
    if (!existsSync(SERVICE_ACCOUNT_TOKEN)) {
      throw new UsageError('failed to load: no kubeconfig found (set KUBECONFIG or pass --kubeconfig)', {
        subject: 'kubeconfig ~/.kube/config',
      });
    }
  }
  // Each file is checked before client-node parses it: its YAML errors quote the offending lines, which
  // for a binary file (a certificate or a gzip given by mistake) puts raw bytes on the terminal.
  const files = options.kubeconfig
    ? [options.kubeconfig]
    : (process.env['KUBECONFIG'] ?? '').split(delimiter).filter(Boolean);
  const defaultFile = join(homedir(), '.kube', 'config');
  if (files.length === 0 && existsSync(defaultFile)) files.push(defaultFile);
  const tokenFiles = new Map<string, string>();
  for (const file of files) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch (err) {
      // A missing file in a KUBECONFIG list is skipped by kubectl; client-node reports it below.
      if (options.kubeconfig || (err as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new UsageError(`failed to load: ${oneLine(err)}`, {
          subject: `kubeconfig ${file}`,
          cause: err,
        });
      }
      continue;
    }
    if (!isText(bytes)) {
      throw new UsageError('failed to load: not a text file (binary, or not UTF-8)', {
        subject: `kubeconfig ${file}`,
      });
    }
    readTokenFiles(bytes.toString('utf8'), tokenFiles);
  }
  try {
    if (options.kubeconfig) kc.loadFromFile(options.kubeconfig);
    else kc.loadFromDefault();
  } catch (err) {
    throw new UsageError(`failed to load: ${loadFailure(err)}`, {
      subject: `kubeconfig ${source}`,
      cause: err,
    });
  }
  if (options.context !== undefined) {
    if (!kc.getContextObject(options.context)) {
      throw new UsageError(`failed to select context: no such context (have: ${contextNames(kc)})`, {
        subject: `context ${options.context}`,
      });
    }
    kc.setCurrentContext(options.context);
  }
  if (tokenFiles.size > 0) TOKEN_FILES.set(kc, tokenFiles);
  return kc;
}

/**
 * Per loaded kubeconfig, its users' `tokenFile`s (user name -> path). client-node reads a
 * `token-file` once, when it parses the kubeconfig, and keeps only the token; client-go reads it again
 * (about every minute), so a rotated token (a projected service-account token, about hourly) is picked
 * up. credentials.ts reads these paths again when the file changes (`tokenFileOf`).
 */
const TOKEN_FILES = new WeakMap<KubeConfig, ReadonlyMap<string, string>>();

/** The `tokenFile` of `user` in the kubeconfig `kc` was loaded from, when it has one and no `token`. */
export function tokenFileOf(kc: KubeConfig, user: string): string | undefined {
  return TOKEN_FILES.get(kc)?.get(user);
}

/** A copy of a loaded kubeconfig (another current context, a cluster changed) keeps its token files. */
export function keepTokenFiles(from: KubeConfig, copy: KubeConfig): void {
  const tokenFiles = TOKEN_FILES.get(from);
  if (tokenFiles) TOKEN_FILES.set(copy, tokenFiles);
}

/**
 * Records the token files of one kubeconfig file's users (the first file naming a user wins, as kubectl
 * merges). A user with a `token` too keeps it: the token wins over the file, as the kubeconfig reference
 * says. (A relative path is taken relative to the working directory, as client-node reads it when it
 * loads the file; kubectl takes it relative to the kubeconfig.)
 */
function readTokenFiles(text: string, into: Map<string, string>): void {
  // A file that does not spell either key (without a backslash, no YAML or JSON escape can make one) has
  // no token file: not parsed a second time (client-node parses it anyway; issue 23, start-up time).
  if (!text.includes('token-file') && !text.includes('tokenFile') && !text.includes('\\')) return;
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch {
    return; // client-node reports the file's YAML errors
  }
  const users = (doc as { users?: unknown } | null)?.users;
  if (!Array.isArray(users)) return;
  for (const entry of users as Array<{ name?: unknown; user?: Record<string, unknown> }>) {
    const name = typeof entry?.name === 'string' ? entry.name : undefined;
    const user = entry?.user;
    if (!name || into.has(name) || !user || typeof user !== 'object') continue;
    const path = user['token-file'] ?? user['tokenFile'];
    if (typeof path !== 'string' || !path || user['token']) continue;
    into.set(name, path);
  }
}

/** A copy of `kc` whose current context is `context` (clients are bound to a current context). */
export async function forContext(kc: KubeConfig, context: string): Promise<KubeConfig> {
  const { KubeConfig } = await importKubeConfig();
  const copy = new KubeConfig();
  copy.loadFromOptions({
    clusters: kc.getClusters(),
    users: kc.getUsers(),
    contexts: kc.getContexts(),
    currentContext: context,
  });
  keepTokenFiles(kc, copy);
  return copy;
}

const trimSlash = (s: string): string => s.replace(/\/+$/, '');

/** The name of the kubeconfig context serving `dest`; throws a GitopsError naming the destination if none. */
export function resolveDestination(kc: KubeConfig, dest: Destination): string {
  const current = kc.getCurrentContext();
  const server = dest.server ? trimSlash(dest.server) : undefined;
  if (server === IN_CLUSTER_SERVER || (!server && dest.name === IN_CLUSTER_NAME)) {
    if (!current || !kc.getContextObject(current)) {
      throw new GitopsError(
        'failed to resolve to a kubeconfig context: the kubeconfig has no current context',
        {
          subject: `destination ${dest.server ?? dest.name}`,
        },
      );
    }
    return current;
  }
  const contexts = kc.getContexts();
  if (server) {
    const serverOf = (ctx: { cluster: string }): string | undefined => {
      const s = kc.getCluster(ctx.cluster)?.server;
      return s === undefined ? undefined : trimSlash(s);
    };
    const matches = contexts.filter((c) => serverOf(c) === server);
    const match = matches.find((c) => c.name === current) ?? matches[0];
    if (match) return match.name;
  } else if (dest.name) {
    const match = contexts.find((c) => c.name === dest.name) ?? contexts.find((c) => c.cluster === dest.name);
    if (match) return match.name;
  }
  const what = server
    ? `no context's cluster has server ${server}`
    : `no context or cluster is named ${dest.name}`;
  throw new GitopsError(
    `failed to resolve to a kubeconfig context: ${what} (contexts: ${contextNames(kc)})`,
    {
      subject: `destination ${dest.server ?? dest.name ?? '(empty)'}`,
      hint: 'add a context for this cluster to your kubeconfig, or pass --kubeconfig/--context',
    },
  );
}

/** UTF-8 with no control characters other than tab, CR and LF (YAML allows no others). */
function isText(bytes: Buffer): boolean {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return false;
  }
  // eslint-disable-next-line no-control-regex
  return !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text);
}

/** Why client-node could not load a kubeconfig, on one line and without quoting the file's text. */
function loadFailure(err: unknown): string {
  // client-node dereferences the parsed document without checks: an empty or non-kubeconfig file throws
  // a TypeError ("Cannot read properties of undefined") that says nothing to the user.
  if (err instanceof TypeError) return 'not a kubeconfig (empty, or no clusters/contexts/users)';
  // js-yaml's YAMLException: `reason` and `mark` (0-based line/column); its message quotes the source.
  const yamlError = err as { name?: string; reason?: string; mark?: { line: number; column: number } };
  if (yamlError.name === 'YAMLException' && yamlError.reason) {
    const at = yamlError.mark
      ? ` (line ${yamlError.mark.line + 1}, column ${yamlError.mark.column + 1})`
      : '';
    return `invalid YAML: ${yamlError.reason}${at}`;
  }
  return oneLine(err);
}

function contextNames(kc: KubeConfig): string {
  const names = kc.getContexts().map((c) => c.name);
  return names.length ? names.join(', ') : 'none';
}
