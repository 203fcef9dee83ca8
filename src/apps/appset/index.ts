/**
 * ApplicationSets expanded locally (the door of `src/apps/appset/`), as Argo CD's ApplicationSet
 * controller generates Applications (docs/appsets.md names the upstream files followed):
 *
 * - `expandApplicationSet(manifest, origin, ctx)` -> the generated Application manifests and parsed
 *   `Application`s; `ctx` supplies cluster Secrets (clusters generator) and a checkout of a repository at
 *   a revision (git generators read it at the revision being rendered).
 * - `loadApplicationSetFiles(paths)` reads the ApplicationSets of files and folders alone (`-f`; commands
 *   that read Applications too use src/apps `readAppFiles`, one pass for both); `loadClusterApplicationSets` those of the live Argo CD
 *   namespace (`--from-cluster`).
 * - `generateApplications(manifest, ctx)`: the controller's generation (Argo CD's reasons on failure);
 *   `requeueAfterMs(generator)`, `usesClusters(generator)`: when it generates again.
 * - Generators: list, clusters, git (directories, files), matrix, merge, and with `ctx.scm` pullRequest and
 *   scmProvider (GitHub, GitLab); templates: `{{param}}`
 *   (fasttemplate) or `goTemplate: true` (template.ts: a text/template subset with the functions listed in
 *   `GO_FUNCTIONS`), `templatePatch`. Anything else is a UsageError naming the ApplicationSet and the field.
 */
import { listAppFiles, type SourcedAppSet } from '../load.js';
import { describeSource, readKubeObjects } from '../../util/yaml-docs.js';
import { argoCdStringField } from '../string-fields.js';
import { isApplicationSet } from './expand.js';

export {
  expandApplicationSet,
  generateApplications,
  isApplicationSet,
  APPLICATIONSET_KIND,
  RESOURCES_FINALIZER,
} from './expand.js';
export type { ExpandContext, ExpandedAppSet, GenerationError } from './expand.js';
export type { AppSetCluster, ScmAccess } from './generators.js';
export { goPathMatch, requeueAfterMs, usesClusters } from './generators.js';
export { slugMake } from './generators/scm.js';
import type { ClusterAppSetsOptions } from './cluster.js';

export type { ClusterAppSetsOptions, SourcedAppSet };

/** The ApplicationSets of the live Argo CD namespace (`--from-cluster`; loads the cluster client on use). */
export async function loadClusterApplicationSets(options: ClusterAppSetsOptions): Promise<SourcedAppSet[]> {
  return (await import('./cluster.js')).loadClusterApplicationSets(options);
}
export { GO_FUNCTIONS, renderGoTemplate, replaceFast, sanitizeName, TemplateError } from './template.js';

/** Every ApplicationSet in `paths` (files or folders), file then document order. */
export async function loadApplicationSetFiles(paths: readonly string[]): Promise<SourcedAppSet[]> {
  const out: SourcedAppSet[] = [];
  for (const file of await listAppFiles(paths)) {
    for (const sourced of await readKubeObjects(file, argoCdStringField)) {
      if (isApplicationSet(sourced.object))
        out.push({ manifest: sourced.object, origin: describeSource(sourced) });
    }
  }
  return out;
}
