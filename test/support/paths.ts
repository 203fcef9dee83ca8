/** Paths tests share: the repo root, the shared specs beside the checkout, the built launcher. */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** ../shared/spec next to the checkout (CI clones main with shared/ beside it). */
export const specDir = process.env['KUBECTL_GITOPS_SPEC_DIR'] ?? join(repoRoot, '..', 'shared', 'spec');
/** The production launcher (runs dist/, made by `npm run build`). */
export const launcher = join(repoRoot, 'bin', 'kubectl-gitops');
