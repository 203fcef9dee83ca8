/**
 * `diff --base` reuse of the base render (src/preview/reuse.ts): Argo CD's manifest-generate-paths rules
 * (util/app/path GetSourceRefreshPaths, AppFilesHaveChanged) and what an annotated app may reuse.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { parseApplication, type Application } from '../../src/apps/index.js';
import { filesHaveChanged, refreshPaths } from '../../src/apps/index.js';
import { reusableRender } from '../../src/preview/reuse.js';
import type { RenderedApp } from '../../src/source/index.js';

const REPO = 'https://git.example.com/deploy.git';

function chartApp(annotation?: string): Application {
  return parseApplication(
    parse(`apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: web
  ${annotation !== undefined ? `annotations: {argocd.argoproj.io/manifest-generate-paths: "${annotation}"}` : ''}
spec:
  source: {repoURL: ${REPO}, path: charts/web, targetRevision: main, helm: {valueFiles: [../../values/web.yaml]}}
  destination: {server: https://kubernetes.default.svc, namespace: web}
`) as never,
    'test',
  );
}

describe('manifest-generate-paths (Argo CD util/app/path)', () => {
  it('paths: ";"-separated, relative to the source path, "/" from the repository root, trimmed', () => {
    const app = chartApp('.; /values ;; ../common/*.yaml');
    assert.deepEqual(refreshPaths(app, app.sources[0]!), ['charts/web', 'values', 'charts/common/*.yaml']);
  });

  it('a changed file matches a path exactly, under it, or as a glob that does not cross "/"', () => {
    const paths = ['charts/web', 'values/web.yaml', 'charts/common/*.yaml'];
    const changed = (...files: string[]) => filesHaveChanged(paths, new Set(files));
    assert.equal(changed('charts/web/templates/cm.yaml'), true);
    assert.equal(changed('values/web.yaml'), true);
    assert.equal(changed('charts/common/a.yaml'), true);
    assert.equal(changed('charts/common/sub/a.yaml'), false);
    assert.equal(changed('charts/webby/x.yaml', 'values/other.yaml', 'README.md'), false);
    assert.equal(filesHaveChanged([], new Set(['x'])), true, 'no paths: always refresh');
  });

  it('an annotated Helm app is reused when no changed file is under its paths, rendered again otherwise', async () => {
    const rendered = (app: Application): RenderedApp => ({
      app,
      revision: 'base-sha',
      sources: [
        {
          repoURL: REPO,
          path: 'charts/web',
          targetRevision: 'main',
          revision: 'base-sha',
          type: 'Helm',
          cached: false,
        },
      ],
      objects: [],
      warnings: [],
    });
    const options = (changed: string[]) => ({
      changed: new Set(changed),
      files: () => Promise.resolve([]),
      readFile: () => Promise.reject(new Error('no file')),
      moves: () => true,
      headRevision: 'head-sha',
    });
    const annotated = chartApp('.;/values');
    const reused = await reusableRender(
      annotated,
      { app: annotated, rendered: rendered(annotated) },
      options(['docs/x.md']),
    );
    assert.equal(reused?.revision, 'head-sha');
    assert.equal(
      await reusableRender(
        annotated,
        { app: annotated, rendered: rendered(annotated) },
        options(['values/web.yaml']),
      ),
      undefined,
    );
    // Without the annotation a Helm app is never reused (its value files may be anywhere).
    const plain = chartApp();
    assert.equal(
      await reusableRender(plain, { app: plain, rendered: rendered(plain) }, options(['docs/x.md'])),
      undefined,
    );
  });
});
