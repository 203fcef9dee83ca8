/**
 * Kustomize sources: a directory holding `kustomization.yaml`, `kustomization.yml` or `Kustomization`.
 * Built with `kustomize build DIR` when `kustomize` is on PATH, else `kubectl kustomize DIR`.
 *
 * `spec.source.kustomize` options are applied like Argo CD's `kustomize edit` calls, but in a temporary copy
 * of the repository (never in the user's tree or the shared checkout):
 * namePrefix/nameSuffix/namespace replace the kustomization's values; `images` (`name[=newName][:tag|@digest]`)
 * replace entries of the same name or are appended; commonLabels/commonAnnotations are merged (ours win).
 * Without options the source is built in place.
 */
import { readdirSync } from 'node:fs';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import { parseDocument } from 'yaml';
import type { KustomizeOptions } from '../../apps/index.js';
import { ObjectsError, parseObjects } from './objects.js';
import { RenderError, type RenderRequest, type RenderResult, type RenderTools } from './types.js';

export const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

export interface KustomizeImage {
  name: string;
  newName?: string;
  newTag?: string;
  digest?: string;
}

/** Parses `kustomize edit set image` syntax: name[=newName][:tag|@digest] (registry ports are kept). */
export function parseImage(spec: string): KustomizeImage {
  const eq = spec.indexOf('=');
  const name = eq < 0 ? undefined : spec.slice(0, eq);
  let rest = eq < 0 ? spec : spec.slice(eq + 1);
  const out: Partial<KustomizeImage> = {};
  const at = rest.indexOf('@');
  if (at >= 0) {
    out.digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
  } else {
    const colon = rest.lastIndexOf(':');
    if (colon > rest.lastIndexOf('/')) {
      out.newTag = rest.slice(colon + 1);
      rest = rest.slice(0, colon);
    }
  }
  if (name === undefined) return { name: rest, ...out };
  return { name, newName: rest, ...out };
}

export function hasKustomizeEdits(o: KustomizeOptions | undefined): o is KustomizeOptions {
  if (!o) return false;
  return Boolean(
    o.namePrefix ||
    o.nameSuffix ||
    o.namespace ||
    o.images.length ||
    Object.keys(o.commonLabels).length ||
    Object.keys(o.commonAnnotations).length,
  );
}

/** Applies the options to kustomization text; returns the new text. */
export function editKustomization(text: string, o: KustomizeOptions): string {
  const parsed = parseDocument(text);
  if (parsed.errors[0]) throw new Error(`invalid YAML: ${parsed.errors[0].message.split('\n')[0]}`);
  // An empty kustomization file is valid: start from an empty mapping.
  const doc = parsed.contents === null ? parseDocument('{}') : parsed;
  if (o.namePrefix) doc.set('namePrefix', o.namePrefix);
  if (o.nameSuffix) doc.set('nameSuffix', o.nameSuffix);
  if (o.namespace) doc.set('namespace', o.namespace);
  if (o.images.length) {
    const images = ((doc.toJS() as Record<string, unknown>)['images'] as KustomizeImage[] | undefined) ?? [];
    for (const spec of o.images) {
      const image = parseImage(spec);
      const i = images.findIndex((x) => x.name === image.name);
      if (i >= 0) images[i] = image;
      else images.push(image);
    }
    doc.set('images', images);
  }
  for (const [field, values] of [
    ['commonLabels', o.commonLabels],
    ['commonAnnotations', o.commonAnnotations],
  ] as const) {
    if (Object.keys(values).length === 0) continue;
    const current =
      ((doc.toJS() as Record<string, unknown>)[field] as Record<string, string> | undefined) ?? {};
    doc.set(field, { ...current, ...values });
  }
  return doc.toString();
}

export async function kustomizationFile(dir: string): Promise<string | undefined> {
  const names = new Set(readdirSync(dir)); // synchronously, as the other metadata reads (index.ts)
  return KUSTOMIZATION_FILES.find((f) => names.has(f));
}

export async function renderKustomize(
  req: RenderRequest,
  dir: string,
  tools: RenderTools,
): Promise<RenderResult> {
  const kustomize = await tools.which('kustomize');
  const kubectl = kustomize ? undefined : await tools.which('kubectl');
  if (!kustomize && !kubectl) {
    throw new RenderError(
      relative(req.root, dir) || '.',
      'kustomize is not installed (neither kustomize nor kubectl on PATH)',
    );
  }
  let buildDir = dir;
  const options = req.source.kustomize;
  if (hasKustomizeEdits(options)) {
    const copy = await tools.tempDir('kustomize-');
    await cp(req.root, copy, { recursive: true, filter: (src) => basename(src) !== '.git' });
    buildDir = join(copy, relative(req.root, dir));
    const name = (await kustomizationFile(buildDir))!;
    const file = join(buildDir, name);
    try {
      await writeFile(file, editKustomization(await readFile(file, 'utf8'), options));
    } catch (err) {
      throw new RenderError(relative(req.root, join(dir, name)), (err as Error).message);
    }
  }
  const [command, args] = kustomize ? [kustomize, ['build', buildDir]] : [kubectl!, ['kustomize', buildDir]];
  const where = relative(req.root, dir) || '.';
  let stdout: string;
  try {
    ({ stdout } = await tools.exec(command, args, {
      cwd: buildDir,
      timeoutMs: tools.timeoutMs,
      ...(tools.signal ? { signal: tools.signal } : {}),
    }));
  } catch (err) {
    // Paths inside the temp copy mean nothing to the user: show them relative to the source.
    throw new RenderError(where, (err as Error).message.split(buildDir).join(where));
  }
  try {
    return {
      type: 'Kustomize',
      tool: kustomize ? 'kustomize' : 'kubectl',
      objects: parseObjects(stdout),
      warnings: [],
    };
  } catch (err) {
    if (err instanceof ObjectsError) throw new RenderError(where, `kustomize output: ${err.message}`);
    throw err;
  }
}
