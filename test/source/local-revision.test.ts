/**
 * `localRevision: 'digest'` (the source service under `sync --watch --local`): the revision of a source read
 * from the working directory is a digest of its files, so a saved change is a new revision for the loop's
 * auto-sync and a live edit is drift at the same revision. Real files in a temp dir; real rendering.
 */
import { strict as assert } from 'node:assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { adHocApplication } from '../../src/apps/index.js';
import { createSourceService } from '../../src/source/index.js';
import { cm, tempDir, tree } from '../support/git.js';

const URL = 'https://git.example.com/apps.git';
const app = adHocApplication({ repo: URL, path: 'app', name: 'web', destNamespace: 'web' });

describe('source service: the revision of a --local source', () => {
  it('is "local" by default', async () => {
    const dir = tree({ 'app/a.yaml': cm('a') });
    const service = createSourceService({ cacheRoot: tempDir('kg-cache-'), local: dir });
    try {
      assert.equal((await service.renderApp(app)).revision, 'local');
    } finally {
      await service.close();
    }
  });

  it('with digest: stable while the files are, new after a change once revisions are forgotten; .git ignored', async () => {
    const dir = tree({ 'app/a.yaml': cm('a'), 'other/b.yaml': cm('b') });
    const service = createSourceService({
      cacheRoot: tempDir('kg-cache-'),
      local: dir,
      localRevision: 'digest',
    });
    try {
      const first = (await service.renderApp(app)).revision;
      assert.match(first, /^local:[0-9a-f]{12}$/);
      assert.equal((await service.renderApp(app)).revision, first, 'same files, same revision');
      mkdirSync(join(dir, '.git'));
      writeFileSync(join(dir, '.git/index'), 'noise');
      service.forgetRevisions!(URL);
      assert.equal((await service.renderApp(app)).revision, first, '.git is not part of it');

      writeFileSync(join(dir, 'app/a.yaml'), cm('a').replace('key: a', 'key: saved'));
      assert.equal((await service.renderApp(app)).revision, first, 'memoized until forgotten');
      service.forgetRevisions!(URL);
      const second = await service.renderApp(app);
      assert.notEqual(second.revision, first, 'a saved change is a new revision');
      assert.equal((second.objects[0]!['data'] as Record<string, string>)['key'], 'saved');
      // A rename is a change too (paths are part of the digest).
      writeFileSync(join(dir, 'other/c.yaml'), cm('b'));
      service.forgetRevisions!(URL);
      assert.notEqual((await service.renderApp(app)).revision, second.revision);
    } finally {
      await service.close();
    }
  });
});
