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
import type https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { GitopsError, oneLine } from '../common/index.js';

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
