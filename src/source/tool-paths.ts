/**
 * Which helm and kustomize binary a render runs (docs/desired-state.md "Which binaries"):
 * - helm: `--helm-path`, else `helm` on PATH, else the helm `npm run tools` installed (Argo CD 3.6's
 *   4.2.4). `spec.source.helm.version` may be "", "v3" or "v4": Argo CD 3.6 runs its one helm for each
 *   (`util/helm/cmd.go NewCmd`); any other value is "helm version 'X' is not supported", as there.
 * - kustomize: a source's `kustomize.version` must be registered in argocd-cm (`kustomize.path.<version>`
 *   or the older `kustomize.version.<version>`), else "kustomize version X is not registered"
 *   (`util/settings GetKustomizeBinaryPath`); without a version: `--kustomize-path`, else `kustomize` on
 *   PATH, else the kustomize `npm run tools` installed (Argo CD 3.6's 5.8.1). `kubectl kustomize` is never
 *   used: it embeds another kustomize than Argo CD runs.
 * Lookups are memoised for the service's lifetime; a named binary that is not an executable file is an error.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { which } from './exec.js';
import { bundledToolPath, toolsDir } from './render/tool-versions.js';

/** argocd-cm's kustomize settings (`util/settings GetKustomizeSettings`). */
export interface KustomizeSettings {
  /** `kustomize.buildOptions` ("" = none). */
  buildOptions: string;
  /** `kustomize.path.<version>` / `kustomize.version.<version>`: version -> binary path. */
  versions: Record<string, string>;
}

export interface ToolPathOptions {
  helmPath?: string;
  kustomizePath?: string;
  /** PATH searched (default process.env.PATH). */
  path?: string;
  /** argocd-cm's kustomize settings, read once on the first kustomize render. */
  kustomizeSettings?: () => Promise<KustomizeSettings | undefined>;
  /** Whether to fall back to the binaries `npm run tools` installs (default true; tests of "missing" say false). */
  bundled?: boolean;
}

async function executable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

export class ToolPaths {
  private readonly found = new Map<string, Promise<string>>();
  private settings: Promise<KustomizeSettings | undefined> | undefined;

  constructor(private readonly options: ToolPathOptions = {}) {}

  private memo(key: string, find: () => Promise<string>): Promise<string> {
    let p = this.found.get(key);
    if (!p) {
      p = find();
      this.found.set(key, p);
    }
    return p;
  }

  /** The named binary, else `name` on PATH, else the one `npm run tools` installs; rejects with why not. */
  private async locate(name: 'helm' | 'kustomize', flag: string, given: string | undefined): Promise<string> {
    if (given) {
      if (await executable(given)) return given;
      throw new Error(`${name} not found: ${flag} ${given} is not an executable file`);
    }
    const onPath = await which(name, this.options.path);
    if (onPath) return onPath;
    const bundled = bundledToolPath(name);
    if (this.options.bundled !== false && (await executable(bundled))) return bundled;
    throw new Error(
      `${name} is not installed: not on PATH nor in ${toolsDir()} (install it with \`npm run tools\`, or name one with ${flag})`,
    );
  }

  helm(version = ''): Promise<string> {
    if (!['', 'v3', 'v4'].includes(version))
      return Promise.reject(new Error(`helm version '${version}' is not supported`));
    return this.memo('helm', () => this.locate('helm', '--helm-path', this.options.helmPath));
  }

  kustomizeSettings(): Promise<KustomizeSettings | undefined> {
    this.settings ??= this.options.kustomizeSettings?.() ?? Promise.resolve(undefined);
    return this.settings;
  }

  kustomize(version = ''): Promise<string> {
    return this.memo(`kustomize:${version}`, async () => {
      if (version) {
        const path = (await this.kustomizeSettings())?.versions[version];
        if (!path)
          throw new Error(
            `kustomize version ${version} is not registered (argocd-cm kustomize.path.${version})`,
          );
        if (!(await executable(path)))
          throw new Error(
            `kustomize ${version} not found: argocd-cm kustomize.path.${version} ${path} is not an executable file`,
          );
        return path;
      }
      return this.locate('kustomize', '--kustomize-path', this.options.kustomizePath);
    });
  }
}
