/**
 * Argo CD's own CustomResourceDefinitions, as tests install them into the embedded API server: the files in
 * test/fixtures/argocd-crds/ are argo-cd v3.5.1's `manifests/crds/*.yaml`, unmodified (see
 * test/fixtures/README.md). They are what a real cluster with Argo CD installed serves:
 * - Application: a full structural schema (fields it does not declare are pruned on every write) and
 *   `subresources: {}`, NO status subresource: `status` is written through the main resource, and every
 *   change (status included) bumps `metadata.generation`.
 * - AppProject: a structural schema, no subresources.
 * - ApplicationSet: a structural schema and the status subresource (main-resource writes keep the old
 *   status; `/status` writes change status only).
 * Each export is parsed once per test process: tests clone it (`structuredClone`) before changing it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { KubeObject } from '../../src/common/index.js';
import { fixturesDir } from './paths.js';

export const ARGOCD_CRDS_DIR = join(fixturesDir, 'argocd-crds');

function load(file: string): KubeObject {
  return parse(readFileSync(join(ARGOCD_CRDS_DIR, file), 'utf8')) as KubeObject;
}

/** The Application CRD (applications.argoproj.io, v1alpha1) of Argo CD v3.5.1. */
export const APPLICATION_CRD: KubeObject = load('application-crd.yaml');

/** The AppProject CRD (appprojects.argoproj.io, v1alpha1) of Argo CD v3.5.1. */
export const APP_PROJECT_CRD: KubeObject = load('appproject-crd.yaml');

/** The ApplicationSet CRD (applicationsets.argoproj.io, v1alpha1) of Argo CD v3.5.1. */
export const APPLICATION_SET_CRD: KubeObject = load('applicationset-crd.yaml');
