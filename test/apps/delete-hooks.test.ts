/**
 * PreDelete / PostDelete hooks (src/apps delete-hooks.ts): which objects are such hooks (Argo CD's and
 * Helm's annotations), the finalizers a refresh puts on the Application for them (appcontroller.go
 * processAppRefreshQueueItem) and the order of finalizeApplicationDeletion's stages.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import {
  deleteHookFinalizers,
  deleteHooksOf,
  deletionStage,
  isDeleteHook,
  withoutDeletionFinalizers,
} from '../../src/apps/index.js';
import type { KubeObject } from '../../src/cluster/index.js';

const annotated = (annotations: Record<string, string>): KubeObject => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'j', annotations },
});
const PRE = 'pre-delete-finalizer.argocd.argoproj.io';
const POST = 'post-delete-finalizer.argocd.argoproj.io';
const RES = 'resources-finalizer.argocd.argoproj.io';

describe('delete hooks', () => {
  it('recognizes Argo CD and Helm delete hooks, in comma-separated lists', () => {
    assert.equal(isDeleteHook(annotated({ 'argocd.argoproj.io/hook': 'PreDelete' }), 'PreDelete'), true);
    assert.equal(
      isDeleteHook(annotated({ 'argocd.argoproj.io/hook': 'PreSync, PostDelete' }), 'PostDelete'),
      true,
    );
    assert.equal(isDeleteHook(annotated({ 'helm.sh/hook': 'pre-install,pre-delete' }), 'PreDelete'), true);
    assert.equal(isDeleteHook(annotated({ 'helm.sh/hook': 'post-delete' }), 'PostDelete'), true);
    assert.equal(isDeleteHook(annotated({ 'argocd.argoproj.io/hook': 'PreSync' }), 'PreDelete'), false);
    assert.deepEqual(deleteHooksOf([annotated({ 'helm.sh/hook': 'pre-delete' })]), {
      pre: true,
      post: false,
    });
  });

  it('a refresh adds both stages of each hook type found, at the end, and removes those not found', () => {
    assert.deepEqual(deleteHookFinalizers([RES], { pre: true, post: true }), [
      RES,
      PRE,
      `${PRE}/cleanup`,
      POST,
      `${POST}/cleanup`,
    ]);
    assert.deepEqual(deleteHookFinalizers([RES, PRE, `${PRE}/cleanup`], { pre: false, post: false }), [RES]);
    // One stage missing is mended; nothing to change gives undefined (no write).
    assert.deepEqual(deleteHookFinalizers([PRE], { pre: true, post: false }), [PRE, `${PRE}/cleanup`]);
    assert.equal(deleteHookFinalizers([RES, PRE, `${PRE}/cleanup`], { pre: true, post: false }), undefined);
    assert.equal(deleteHookFinalizers([], { pre: false, post: false }), undefined);
  });

  it("deletes in finalizeApplicationDeletion's order: PreDelete, cascade, PostDelete, cleanups", () => {
    const app = (finalizers: string[]): KubeObject => ({ metadata: { name: 'a', finalizers } });
    const all = [RES, PRE, `${PRE}/cleanup`, POST, `${POST}/cleanup`];
    assert.equal(deletionStage(app(all)), 'pre-delete');
    assert.equal(deletionStage(app(all.filter((f) => f !== PRE))), 'cascade');
    assert.equal(deletionStage(app([`${PRE}/cleanup`, POST, `${POST}/cleanup`])), 'post-delete');
    assert.equal(deletionStage(app([`${PRE}/cleanup`, `${POST}/cleanup`])), 'pre-delete-cleanup');
    assert.equal(deletionStage(app([`${POST}/cleanup`, 'other'])), 'post-delete-cleanup');
    assert.equal(deletionStage(app(['other'])), 'none');
    // A destination that cannot be found drops every stage, keeping foreign finalizers.
    assert.deepEqual(withoutDeletionFinalizers(app([...all, 'other'])), ['other']);
  });
});
