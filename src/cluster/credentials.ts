/**
 * Credentials of a kubeconfig user, applied to one request (client-node's `applyToHTTPSOptions`: token,
 * client certificate, exec and auth-provider plugins).
 *
 * A failure here is about the kubeconfig user, not about the resource the request was for: it is a
 * `CredentialsError` naming the context and user (and, for an exec plugin, its command), never retried and
 * never wrapped into a per-resource "failed to list". A missing exec plugin is said as kubectl says it
 * (client-go's exec authenticator: "executable X not found ... a client-go credential plugin that is not
 * installed"), with the kubeconfig's `installHint` as the hint when it has one.
 */
import { readFileSync, statSync } from 'node:fs';
import type https from 'node:https';
import { createSecureContext, type SecureContext } from 'node:tls';
import type { KubeConfig } from '@kubernetes/client-node';
import { GitopsError, oneLine } from '../common/index.js';
import { tokenFileOf } from './kubeconfig.js';

export class CredentialsError extends GitopsError {
  constructor(message: string, options: { subject: string; hint?: string; cause?: unknown }) {
    super(message, options);
    this.name = 'CredentialsError';
  }
}

export async function applyCredentials(
  kc: KubeConfig,
  opts: https.RequestOptions,
  context: string = kc.getCurrentContext(),
): Promise<void> {
  const user = kc.getCurrentUser();
  // Exec and auth-provider plugins hand out tokens that expire: asked on every request, as client-node
  // does. Anything else (token, basic auth, certificates and CA, from data or files) is read once per
  // kubeconfig and context, as kubectl does: client-node would read the files and build a new agent (which
  // the client replaces with its own keep-alive one) on every request.
  const dynamic = user?.exec !== undefined || user?.authProvider !== undefined;
  if (dynamic) {
    await applyFresh(kc, opts, context);
    return;
  }
  const key = kc.getCurrentContext();
  let known = staticCredentials.get(kc)?.get(key);
  if (!known) {
    const fresh: https.RequestOptions = {};
    await applyFresh(kc, fresh, context);
    delete fresh.agent;
    // One TLS context for every connection: without it each new socket (every watch, every socket of the
    // keep-alive pool) parses the CA and the client key again (tls.connect's createSecureContext): the
    // largest cost of a one-app diff on a real kube-apiserver (issue 31's profile).
    if (
      fresh.ca !== undefined ||
      fresh.cert !== undefined ||
      fresh.key !== undefined ||
      fresh.pfx !== undefined
    )
      (fresh as https.RequestOptions & { secureContext?: SecureContext }).secureContext =
        createSecureContext(fresh);
    known = fresh;
    let byContext = staticCredentials.get(kc);
    if (!byContext) staticCredentials.set(kc, (byContext = new Map()));
    byContext.set(key, known);
  }
  for (const [name, value] of Object.entries(known) as Array<[keyof https.RequestOptions, unknown]>) {
    if (name === 'headers') opts.headers = { ...(opts.headers ?? {}), ...(value as object) };
    else (opts as Record<string, unknown>)[name] = value;
  }
  // A token file is read again when it changes (a rotated token), not kept from the first read.
  const file = user ? tokenFileOf(kc, user.name) : undefined;
  if (file)
    opts.headers = {
      ...(opts.headers ?? {}),
      Authorization: `Bearer ${readTokenFile(file, context, user!.name)}`,
    };
}

/** Per token file, the token and the file's identity (inode, size, mtime) when it was read. */
const tokens = new Map<string, { stamp: string; token: string }>();

function readTokenFile(file: string, context: string, user: string): string {
  try {
    const st = statSync(file);
    const stamp = `${st.ino}:${st.size}:${st.mtimeMs}`;
    const known = tokens.get(file);
    if (known?.stamp === stamp) return known.token;
    const token = readFileSync(file, 'utf8').trim();
    tokens.set(file, { stamp, token });
    return token;
  } catch (err) {
    throw new CredentialsError(`failed to get credentials: token file ${file}: ${oneLine(err)}`, {
      subject: `context ${context} (user ${user})`,
      cause: err,
    });
  }
}

/** Static credentials as applied once, per kubeconfig object and its current context. */
const staticCredentials = new WeakMap<KubeConfig, Map<string, https.RequestOptions>>();

async function applyFresh(kc: KubeConfig, opts: https.RequestOptions, context: string): Promise<void> {
  try {
    await kc.applyToHTTPSOptions(opts);
  } catch (err) {
    throw credentialsError(kc, context, err);
  }
}

function credentialsError(kc: KubeConfig, context: string, err: unknown): CredentialsError {
  const user = kc.getCurrentUser();
  const subject = `context ${context} (user ${user?.name ?? 'none'})`;
  const exec = user?.exec as { command?: string; installHint?: string } | undefined;
  if (exec?.command) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EACCES') {
      const what = code === 'ENOENT' ? 'not found' : 'not executable';
      return new CredentialsError(
        `failed to get credentials: exec plugin "${exec.command}" ${what} (a client-go credential plugin that is not installed or not on PATH)`,
        {
          subject,
          hint: exec.installHint
            ? oneLine(exec.installHint)
            : `install "${exec.command}" or fix users[].exec.command of user ${user?.name} in the kubeconfig`,
          cause: err,
        },
      );
    }
    return new CredentialsError(
      `failed to get credentials: exec plugin "${exec.command}" failed: ${truncate(oneLine(err), 300)}`,
      { subject, cause: err },
    );
  }
  return new CredentialsError(`failed to get credentials: ${truncate(oneLine(err), 300)}`, {
    subject,
    cause: err,
  });
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}
