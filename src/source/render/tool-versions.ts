/**
 * The renderer versions Argo CD 3.6's repo-server runs (helm 4.2.4, kustomize 5.8.1) and the last helm 3.x,
 * which `scripts/tools.sh` (`npm run tools`) builds from the Go module proxy into `toolsDir()`, and which the
 * tests run. scripts/tools.sh reads the versions from this file (one `name: 'vX.Y.Z'` per line): keep that shape.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

export const TOOL_VERSIONS = {
  helm: 'v4.2.4',
  helm3: 'v3.22.0',
  kustomize: 'v5.8.1',
} as const;

export type BundledTool = keyof typeof TOOL_VERSIONS;

/** Where scripts/tools.sh installs: `$KUBECTL_GITOPS_TOOLS`, else `$XDG_CACHE_HOME/kubectl-gitops/tools`. */
export function toolsDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env['KUBECTL_GITOPS_TOOLS']) return env['KUBECTL_GITOPS_TOOLS'];
  const cache = env['XDG_CACHE_HOME'] || join(homedir(), '.cache');
  return join(cache, 'kubectl-gitops', 'tools');
}

/** The path scripts/tools.sh installs `tool` at (it may not exist). */
export function bundledToolPath(tool: BundledTool, env: NodeJS.ProcessEnv = process.env): string {
  const name = tool === 'kustomize' ? 'kustomize' : 'helm';
  return join(toolsDir(env), `${name}-${TOOL_VERSIONS[tool]}`, name);
}
