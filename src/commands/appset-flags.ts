/**
 * The ApplicationSet controller's flags of `kubectl gitops controller` (Argo CD's
 * argocd-applicationset-controller flags where they exist, with its defaults) and `runApplicationSets`,
 * which runs it beside the application controller (docs/appset-controller.md).
 */
import { readFileSync } from 'node:fs';
import { Flags } from '@oclif/core';
import { oneLine } from '../common/index.js';
import type { AppSetEvent, AppsSyncPolicy } from '../controller/index.js';
import { createSourceService } from '../source/index.js';
import { clientOptionsOf, runSettings, sourceSelection } from './flags.js';

export const appsetFlags = {
  applications: Flags.boolean({
    description:
      "Run the application controller (--no-applications: only the ApplicationSet controller, as argocd-applicationset-controller beside Argo CD's own application controller).",
    default: true,
    allowNo: true,
  }),
  applicationsets: Flags.boolean({
    description:
      "Also run Argo CD's ApplicationSet controller: generate the Applications of the namespace's ApplicationSets and write their status (--no-applicationsets: Applications only). See docs/appset-controller.md.",
    default: true,
    allowNo: true,
  }),
  'applicationset-namespaces': Flags.string({
    description:
      "Other namespaces whose ApplicationSets are reconciled: names, globs or /regexps/ (Argo CD's --applicationset-namespaces; repeatable or comma-separated).",
    multiple: true,
    delimiter: ',',
  }),
  'applicationset-policy': Flags.string({
    description:
      "What the ApplicationSet controller may do to the Applications it generates (Argo CD's --policy): sync (create, update, delete), create-only, create-update, create-delete. Default: sync, and each ApplicationSet's syncPolicy.applicationsSync may choose.",
    options: ['sync', 'create-only', 'create-update', 'create-delete'],
  }),
  'enable-policy-override': Flags.boolean({
    description:
      "Let an ApplicationSet's syncPolicy.applicationsSync override --applicationset-policy (Argo CD's flag; on when no policy is given).",
    allowNo: true,
  }),
  'enable-progressive-syncs': Flags.boolean({
    description:
      "Run ApplicationSets' RollingSync strategy (Argo CD's alpha progressive syncs; off by default there too).",
  }),
  'enable-scm-providers': Flags.boolean({
    description:
      'Let pull request and SCM provider generators call GitHub and GitLab (as Argo CD; on by default).',
    default: true,
    allowNo: true,
  }),
  'allowed-scm-providers': Flags.string({
    description: 'The custom SCM API URLs generators may call (repeatable or comma-separated; default: all).',
    multiple: true,
    delimiter: ',',
  }),
  'scm-root-ca-path': Flags.string({
    description:
      "A PEM file of the CAs GitLab's API is verified with, in place of the system's (Argo CD's --scm-root-ca-path; a generator's caRef adds its own).",
  }),
  'token-ref-strict-mode': Flags.boolean({
    description:
      "Let a generator's tokenRef name only Secrets labelled argocd.argoproj.io/secret-type: scm-creds (Argo CD's flag; off by default there too: any Secret of the set's namespace).",
  }),
};

export interface AppsetFlagValues {
  applications?: boolean | undefined;
  applicationsets?: boolean | undefined;
  'applicationset-namespaces'?: string[] | undefined;
  'applicationset-policy'?: string | undefined;
  'enable-policy-override'?: boolean | undefined;
  'enable-progressive-syncs'?: boolean | undefined;
  'enable-scm-providers'?: boolean | undefined;
  'allowed-scm-providers'?: string[] | undefined;
  'token-ref-strict-mode'?: boolean | undefined;
  'scm-root-ca-path'?: string | undefined;
}

/**
 * The ApplicationSet controller of `kubectl gitops controller` (unless --no-applicationsets): its own
 * connection, argocd-cm read once (cluster.inClusterEnabled) and a source service for git generators.
 * Resolves when `signal` aborts.
 */
export async function runApplicationSets(
  flags: AppsetFlagValues & {
    'argocd-namespace': string;
    kubeconfig?: string | undefined;
    context?: string | undefined;
    'request-timeout'?: string | undefined;
  },
  o: {
    signal: AbortSignal;
    warn: (m: string) => void;
    onEvent: (e: AppSetEvent) => void;
  },
): Promise<void> {
  if (flags.applicationsets === false) return;
  const { runAppSetController } = await import('../controller/index.js');
  const { connect, loadKubeConfig } = await import('../cluster/index.js');
  const live = { ...flags, 'from-cluster': true };
  const settings = await runSettings(live, o.warn);
  const kubeConfig = await loadKubeConfig({ kubeconfig: flags.kubeconfig, context: flags.context });
  const conn = await connect({ kubeConfig, ...clientOptionsOf(flags) });
  const source = createSourceService({ ...sourceSelection(live, o.warn), signal: o.signal });
  const policy = (flags['applicationset-policy'] ?? '') as AppsSyncPolicy;
  try {
    await runAppSetController({
      client: conn.client,
      argocdNamespace: flags['argocd-namespace'],
      namespaces: flags['applicationset-namespaces'] ?? [],
      policy,
      policyOverride: flags['enable-policy-override'] ?? policy === '',
      progressiveSyncs: flags['enable-progressive-syncs'] ?? false,
      inClusterEnabled: settings.settings?.inClusterEnabled !== false,
      checkout: (url, rev) => source.checkoutTree(url, rev),
      forgetRevisions: (url) => source.forgetRevisions?.(url),
      scm:
        flags['enable-scm-providers'] === false
          ? false
          : {
              allowedProviders: flags['allowed-scm-providers'] ?? [],
              ...(flags['scm-root-ca-path'] ? { rootCA: readRootCA(flags['scm-root-ca-path'], o.warn) } : {}),
            },
      tokenRefStrictMode: flags['token-ref-strict-mode'] ?? false,
      signal: o.signal,
      onEvent: o.onEvent,
      onWarning: o.warn,
    });
  } finally {
    await source.close();
    conn.close();
  }
}

/**
 * `--scm-root-ca-path`: the file's PEM; a file that cannot be read is a warning and the system's CAs are
 * used, as Argo CD's getTLSConfigWithCACert logs and goes on.
 */
function readRootCA(path: string, warn: (m: string) => void): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    warn(
      `--scm-root-ca-path ${path}: failed to read: ${oneLine(err)}; GitLab's API is verified with the system's CAs`,
    );
    return undefined;
  }
}
