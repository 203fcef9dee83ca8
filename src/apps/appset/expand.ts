/**
 * One ApplicationSet -> its Applications, as the ApplicationSet controller generates them
 * (argo-cd `applicationset/controllers/template/template.go` GenerateApplications,
 * `applicationset/utils/utils.go` RenderTemplateParams; see docs/appsets.md):
 *
 * - per `spec.generators[i]`: the generator's own `template` merged over `spec.template` (the generator's
 *   fields win), its parameter sets (generators.ts), then per set the template with every string
 *   rendered (map keys too), then `spec.templatePatch` (rendered, parsed as YAML, merged: maps deeply,
 *   lists replaced);
 * - the Application lives in the ApplicationSet's namespace; the `resources-finalizer.argocd.argoproj.io`
 *   finalizer is added when the template has none and `syncPolicy.preserveResourcesOnDeletion` is off;
 * - two generated Applications with one name are an error (Argo CD refuses the whole set);
 * - every error names the ApplicationSet and where it came from.
 */
import { UsageError } from '../../common/index.js';
import { restoreDocumentText, type KubeObject } from '../../util/yaml-docs.js';
import { parseDocument } from 'yaml';
import { parseApplication } from '../parse.js';
import { applicationPatchStringField } from '../string-fields.js';
import type { Application } from '../types.js';
import { generateParams, mergeGeneratorTemplate, type GeneratorContext } from './generators.js';
import { renderString, renderTree, TemplateError } from './template.js';

export const APPLICATIONSET_KIND = 'ApplicationSet';
export const RESOURCES_FINALIZER = 'resources-finalizer.argocd.argoproj.io';

type Json = Record<string, unknown>;
const isMap = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export function isApplicationSet(obj: KubeObject): boolean {
  return obj.kind === APPLICATIONSET_KIND && String(obj.apiVersion ?? '').startsWith('argoproj.io/');
}

export interface ExpandContext extends Omit<GeneratorContext, 'goTemplate' | 'goTemplateOptions'> {
  /** Namespace of ApplicationSets without one (the control-plane namespace). */
  defaultNamespace: string;
}

export interface ExpandedAppSet {
  name: string;
  /** The generated Application manifests, in generator then parameter-set order. */
  manifests: KubeObject[];
  apps: Application[];
}

/** Why generation failed, with Argo CD's condition reason (ApplicationSetReasonType). */
export interface GenerationError {
  reason: 'ApplicationGenerationFromParamsError' | 'RenderTemplateParamsError';
  /** As Argo CD words it where known (Go template exec errors), else ours. */
  message: string;
  /** Ours, naming the field and generator (local previews print it). */
  located: string;
}

/**
 * Generates one ApplicationSet's Applications as the controller does (template.go GenerateApplications):
 * every generator entry in order; the first failure stops it, with Argo CD's reason (parameters vs
 * rendering). Names are not checked here (the controller validates each Application; `expandApplicationSet`
 * refuses duplicates).
 */
export async function generateApplications(
  appset: KubeObject,
  ctx: ExpandContext,
): Promise<{ manifests: KubeObject[]; error?: GenerationError }> {
  const spec = (appset as Json)['spec'];
  const paramsError = (message: string) => ({
    manifests: [],
    error: { reason: 'ApplicationGenerationFromParamsError' as const, message, located: message },
  });
  if (!isMap(spec)) return paramsError('spec is required');
  const goTemplate = spec['goTemplate'] === true;
  const goTemplateOptions = Array.isArray(spec['goTemplateOptions'])
    ? spec['goTemplateOptions'].map(String)
    : [];
  const template = spec['template'];
  if (!isMap(template)) return paramsError('spec.template is required');
  const generators = spec['generators'];
  if (!Array.isArray(generators) || generators.length === 0)
    return paramsError('spec.generators must not be empty');
  const templatePatch = typeof spec['templatePatch'] === 'string' ? spec['templatePatch'] : undefined;
  const preserve = isMap(spec['syncPolicy']) && spec['syncPolicy']['preserveResourcesOnDeletion'] === true;
  const namespace = appset.metadata?.namespace ?? ctx.defaultNamespace;
  const gctx: GeneratorContext = { ...ctx, goTemplate, goTemplateOptions };

  const manifests: KubeObject[] = [];
  const failed = (reason: GenerationError['reason'], err: unknown) => {
    if (err instanceof TemplateError)
      return {
        manifests: [],
        error: { reason, message: err.argoMessage ?? err.message, located: err.message },
      };
    if (err instanceof UsageError)
      return { manifests: [], error: { reason, message: err.message, located: err.message } };
    throw err;
  };
  for (let i = 0; i < generators.length; i++) {
    const gen = generators[i] as unknown;
    const where = `spec.generators[${i}]`;
    if (!isMap(gen)) return paramsError(`${where}: must be an object`);
    const own = generatorTemplate(gen);
    const merged = own ? mergeGeneratorTemplate(own, template) : template;
    let sets;
    try {
      sets = await generateParams(gen, gctx, where);
    } catch (err) {
      return failed('ApplicationGenerationFromParamsError', err);
    }
    for (const params of sets) {
      try {
        manifests.push(render(merged, params, where));
      } catch (err) {
        return failed('RenderTemplateParamsError', err);
      }
    }
  }
  return { manifests };

  function render(merged: Json, params: Record<string, unknown>, where: string): KubeObject {
    // Template errors name the generator whose parameters were being rendered.
    const inTemplate = <T>(field: string, fn: () => T): T => {
      try {
        return fn();
      } catch (err) {
        if (err instanceof TemplateError)
          throw new TemplateError(
            `${field} (${where}): ${err.message}`,
            err.argoMessage !== undefined && field === 'spec.templatePatch'
              ? `error replacing values in templatePatch: ${err.argoMessage}`
              : err.argoMessage,
          );
        throw err;
      }
    };
    let app =
      Object.keys(params).length === 0
        ? structuredClone(merged)
        : inTemplate('spec.template', () => renderTree(merged, params, goTemplate, goTemplateOptions));
    if (templatePatch !== undefined) {
      const text = inTemplate('spec.templatePatch', () =>
        renderString(templatePatch, params, goTemplate, goTemplateOptions),
      );
      // Application string fields keep their text (`targetRevision: 1.10` stays "1.10"), as in the
      // template itself (string-fields.ts).
      const doc = parseDocument(text, { uniqueKeys: false });
      if (doc.errors[0])
        throw new TemplateError(
          `spec.templatePatch: rendered text is not YAML: ${doc.errors[0].message.split('\n')[0]}`,
        );
      const patch: unknown = doc.toJS({ maxAliasCount: 1000 });
      if (isMap(patch)) restoreDocumentText(doc.contents, patch as Json, applicationPatchStringField);
      if (patch !== null && patch !== undefined) {
        if (!isMap(patch)) throw new TemplateError('spec.templatePatch: must render to a map');
        app = patchMerge(app, patch as Json);
      }
    }
    return toApplication(app, namespace, preserve);
  }
}

/** Expands one ApplicationSet manifest read from `origin`. */
export async function expandApplicationSet(
  appset: KubeObject,
  origin: string,
  ctx: ExpandContext,
): Promise<ExpandedAppSet> {
  const name = String(appset.metadata?.name ?? '');
  const subject = `${origin}: ApplicationSet "${name || '<unnamed>'}"`;
  const fail = (why: string): never => {
    throw new UsageError(`failed to generate Applications: ${why}`, { subject });
  };
  if (!name) fail('metadata.name is required');
  const { manifests, error } = await generateApplications(appset, ctx);
  if (error) fail(error.located);
  const seen = new Set<string>();
  for (const m of manifests) {
    const n = String(m.metadata?.name ?? '');
    if (!n) fail('a generated Application has no metadata.name');
    if (seen.has(n)) fail(`two generated Applications are named "${n}" (Argo CD refuses the set)`);
    seen.add(n);
  }
  const apps = manifests.map((m) => parseApplication(m, `${origin} (ApplicationSet ${name})`));
  return { name, manifests, apps };
}

/** A strategic-merge patch on an Application (no list merge keys there): maps deeply, lists replaced. */
function patchMerge(dst: Json, patch: Json): Json {
  const out: Json = { ...dst };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else if (isMap(v) && isMap(out[k])) out[k] = patchMerge(out[k] as Json, v);
    else out[k] = v;
  }
  return out;
}

function toApplication(app: Json, namespace: string, preserve: boolean): KubeObject {
  const meta = isMap(app['metadata']) ? { ...app['metadata'] } : {};
  meta['namespace'] = namespace;
  const finalizers = Array.isArray(meta['finalizers']) ? meta['finalizers'] : [];
  if (finalizers.length === 0 && !preserve) meta['finalizers'] = [RESOURCES_FINALIZER];
  for (const k of ['labels', 'annotations'])
    if (isMap(meta[k]) && Object.keys(meta[k]).length === 0) delete meta[k];
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: meta,
    spec: isMap(app['spec']) ? app['spec'] : {},
  } as KubeObject;
}

/**
 * A generator's own template: a field of the generator itself (`list: {elements, template}`, `matrix:
 * {generators, template}`), as Argo CD's generators return it (applicationset/generators: GetTemplate returns
 * `&appSetGenerator.List.Template`, ...). Its set fields win over the set's template (mergeGeneratorTemplate:
 * mergo.Merge fills only the generator template's empty fields from the set's).
 */
function generatorTemplate(g: Json): Json | undefined {
  for (const [key, value] of Object.entries(g)) {
    if (key !== 'selector' && isMap(value) && isMap(value['template'])) return value['template'];
  }
  return undefined;
}
