/**
 * Kubernetes objects from rendered text, with Argo CD's rules (`kube.SplitYAML` + repo-server):
 * - multi-document YAML (JSON is YAML); empty documents and documents holding only comments are skipped;
 * - every other document must be a mapping with a `kind` (else it is not an object);
 * - `List` kinds (kind ending in "List" with an `items` array) are flattened into their items;
 * - Application and ApplicationSet string fields keep their text as written (src/apps/string-fields.ts).
 * `parseObjects` throws `ObjectsError` on the first bad document; the directory renderer decides whether a
 * bad file is an error or an unrelated YAML file to skip (`looksLikeManifest`).
 */
import { parseAllDocuments } from 'yaml';
import { argoCdStringField } from '../../apps/index.js';
import { KUBE_YAML_OPTIONS, restoreDocumentText, type KubeObject } from '../../util/yaml-docs.js';

export class ObjectsError extends Error {
  constructor(
    message: string,
    /** Objects parsed before the bad document. */
    readonly parsed: number,
  ) {
    super(message);
    this.name = 'ObjectsError';
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Appends `value` (an object or a List of them) to `out`; throws a plain Error when it is not an object. */
export function pushObject(value: unknown, out: KubeObject[]): void {
  if (!isObject(value)) throw new Error('not a Kubernetes object (expected a mapping)');
  if (typeof value['kind'] !== 'string' || value['kind'] === '') throw new Error("Object 'Kind' is missing");
  if (value['kind'].endsWith('List') && Array.isArray(value['items'])) {
    for (const item of value['items'] as unknown[]) pushObject(item, out);
    return;
  }
  out.push(value as KubeObject);
}

export function parseObjects(text: string): KubeObject[] {
  const out: KubeObject[] = [];
  const docs = parseAllDocuments(text, { ...KUBE_YAML_OPTIONS, uniqueKeys: false });
  const list = Array.isArray(docs) ? docs : [docs];
  list.forEach((doc, index) => {
    const where = list.length > 1 ? `document ${index + 1}: ` : '';
    const error = doc.errors[0];
    if (error) {
      const line = error.linePos?.[0]?.line;
      throw new ObjectsError(
        `${where}invalid YAML${line ? ` at line ${line}` : ''}: ${error.message.split('\n')[0]!.replace(/:$/, '')}`,
        out.length,
      );
    }
    const value: unknown = doc.toJS({ maxAliasCount: 1000 });
    if (value === null || value === undefined) return;
    // Argo CD Applications and ApplicationSets rendered for an app-of-apps keep their string fields as
    // written (`targetRevision: 1.10` stays "1.10"), as in app files (src/apps/string-fields.ts); other
    // kinds, and other tools' `Application`s, are left as YAML reads them.
    if (
      isObject(value) &&
      typeof value['kind'] === 'string' &&
      /^(Application|ApplicationSet|List|ApplicationList|ApplicationSetList)$/.test(value['kind'])
    )
      restoreDocumentText(doc.contents, value, argoCdStringField);
    try {
      pushObject(value, out);
    } catch (err) {
      throw new ObjectsError(`${where}${(err as Error).message}`, out.length);
    }
  });
  return out;
}

/** Argo CD's test for a YAML file that failed to parse: does it look like a Kubernetes resource at all? */
export function looksLikeManifest(text: string): boolean {
  return text.includes('apiVersion:') && text.includes('kind:') && text.includes('metadata:');
}
