/**
 * Parsed app files kept between runs (src/util/yaml-docs.ts): an entry is used only for the same file
 * name and text read by the same code, files with a Secret are never written, and a `keepText` rule whose
 * source is unknown is never cached.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { argoCdStringField } from '../../src/apps/index.js';
import { forgetParsedFiles, readKubeDocuments, setParseCacheDir } from '../../src/util/yaml-docs.js';

const dir = mkdtempSync(join(tmpdir(), 'kg-parse-cache-'));
after(() => {
  setParseCacheDir(undefined);
  forgetParsedFiles();
  rmSync(dir, { recursive: true, force: true });
});

function entries(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath ?? (d as unknown as { path: string }).path, d.name));
}

const app = (name: string, chart = '010') =>
  `apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: ${name}}\nspec:\n  source: {repoURL: 'https://x', chart: c, targetRevision: ${chart}}\n`;

test('a second read of the same text comes from the cache; other text or no cache dir parses again', async () => {
  const cache = join(dir, 'parsed');
  setParseCacheDir(cache);
  const file = join(dir, 'apps.yaml');
  writeFileSync(file, `${app('one')}---\n${app('two')}`);
  const first = await readKubeDocuments(file, argoCdStringField);
  assert.equal(first.documents, 2);
  assert.equal(
    (first.objects[0]!.object['spec'] as { source: { targetRevision: unknown } }).source.targetRevision,
    '010',
  );
  const [entry] = entries(cache);
  assert.ok(entry, 'one entry written');

  // Prove the next read uses the entry: change it on disk.
  const stored = JSON.parse(readFileSync(entry, 'utf8')) as {
    objects: { object: { metadata: { name: string } } }[];
  };
  stored.objects[0]!.object.metadata.name = 'from-cache';
  writeFileSync(entry, JSON.stringify(stored));
  forgetParsedFiles();
  const second = await readKubeDocuments(file, argoCdStringField);
  assert.equal(second.objects[0]!.object.metadata?.name, 'from-cache');
  assert.equal(second.objects[1]!.file, file);
  assert.equal(second.documents, 2);

  // Other text: parsed (a new entry), never the old one.
  writeFileSync(file, app('three'));
  forgetParsedFiles();
  const third = await readKubeDocuments(file, argoCdStringField);
  assert.deepEqual(
    third.objects.map((o) => o.object.metadata?.name),
    ['three'],
  );
  assert.equal(entries(cache).length, 2);

  // A corrupt entry is a miss.
  writeFileSync(entry, '{not json');
  writeFileSync(file, `${app('one')}---\n${app('two')}`);
  forgetParsedFiles();
  const fourth = await readKubeDocuments(file, argoCdStringField);
  assert.equal(fourth.objects[0]!.object.metadata?.name, 'one');
});

test('files with a Secret, and keepText rules of unknown source, are not written', async () => {
  const cache = join(dir, 'parsed-2');
  setParseCacheDir(cache);
  const secret = join(dir, 'secret.yaml');
  writeFileSync(
    secret,
    `${app('a')}---\napiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {k: v}\n`,
  );
  await readKubeDocuments(secret, argoCdStringField);
  const other = join(dir, 'other.yaml');
  writeFileSync(other, app('b'));
  await readKubeDocuments(other, () => false);
  assert.deepEqual(
    entries(join(dir)).filter((f) => f.startsWith(cache)),
    [],
  );
  // Without keepText the parser alone is the code: cached.
  await readKubeDocuments(other);
  assert.equal(entries(dir).filter((f) => f.startsWith(cache)).length, 1);
});
