/**
 * Custom resources read back from storage, as apiextensions-apiserver decodes them from etcd
 * (pkg/apiserver/customresource_handler.go `crdConversionRESTOptionsGetter`: the storage codec is a
 * versioning codec around `schemaCoercingDecoder`, `unstructuredDefaulter` and `schemaCoercingConverter`):
 * 1. decode: the stored object is pruned by the structural schema of the version it is stored at
 *    (`unstructuredSchemaCoercer.apply` -> `structuralpruning.PruneWithOptions`);
 * 2. default: that version's `default`s fill absent fields (`unstructuredDefaulter` ->
 *    `structuraldefaulting.Default`);
 * 3. convert to the version the request names (conversion strategy None: only apiVersion changes), then
 *    pruned again by that version's schema (`schemaCoercingConverter`).
 * Every read goes through it: get, list, watch events and the object a write answers with (etcd3's
 * GuaranteedUpdate and the dry-run storage decode what they encoded). Writes start from the decoded
 * object too (the patch base, apply's live object). The store keeps what was written: after a CRD
 * schema change, a field the new schema does not declare disappears from reads but stays stored, and
 * comes back if a later schema declares it again, as with etcd.
 *
 * Decoded objects are shared and must not be changed; one is kept per stored object (a WeakMap) until a
 * CRD changes (`ResourceRegistry.crdEpoch`).
 * Step 1 also drops nulls the schema neither allows nor defaults (`PruneNonNullableNullsWithoutDefaults`).
 * Not done: the metadata coercion of very old objects (`dropInvalidMetadata`, `repairGeneration`).
 */
import { isDeepStrictEqual } from 'node:util';
import { applyDefaults } from './defaults.js';
import { pruneNonNullableNulls, pruneUnknown } from './field-validation.js';
import type { ResourceRegistry } from './resources.js';
import type { Json, KObject, ResourceType } from './types.js';
import { apiVersionOf, clone } from './types.js';

interface Decoded {
  epoch: number;
  version: string;
  out: KObject;
}

function versionOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
}

export class CustomResourceDecoder {
  private readonly cache = new WeakMap<KObject, Decoded>();

  constructor(private readonly registry: ResourceRegistry) {}

  /** The object as a read at `version` returns it. */
  decode(stored: KObject, t: ResourceType, version: string): KObject {
    const epoch = this.registry.crdEpoch;
    const hit = this.cache.get(stored);
    if (hit && hit.epoch === epoch && hit.version === version) return hit.out;
    const out = clone(stored);
    const schemas = this.registry.schemas;
    const at = versionOf(stored.apiVersion);
    // A version the CRD no longer serves has no schema here; the real server keeps schemas of every
    // listed version (a stored version cannot be dropped from the CRD while objects use it).
    const storedSchema = this.registry.schemaOf(t, at);
    if (storedSchema) {
      pruneUnknown(out as unknown as Json, schemas, storedSchema, '', [], true);
      pruneNonNullableNulls(out as unknown as Json, schemas, storedSchema);
      applyDefaults(out, schemas);
    }
    out.apiVersion = apiVersionOf(t.group, version);
    if (version !== at) {
      const target = this.registry.schemaOf(t, version);
      if (target) pruneUnknown(out as unknown as Json, schemas, target, '', [], true);
    }
    // Most objects decode to what is stored: share the stored one rather than keep a second copy.
    const { apiVersion: _a, ...rest } = out;
    const { apiVersion: _b, ...same } = stored;
    const result = isDeepStrictEqual(rest, same)
      ? stored.apiVersion === out.apiVersion
        ? stored
        : { ...stored, apiVersion: out.apiVersion }
      : out;
    this.cache.set(stored, { epoch, version, out: result });
    return result;
  }

  /** The object as storage keeps it: a custom resource at its CRD's storage version. */
  static encode(obj: KObject, t: ResourceType): KObject {
    if (!t.crd || !t.storageVersion) return obj;
    const apiVersion = apiVersionOf(t.group, t.storageVersion);
    return obj.apiVersion === apiVersion ? obj : { ...obj, apiVersion };
  }
}
