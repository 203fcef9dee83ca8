/** The diff printers on hand-built reports: colours only when asked, name format, markdown cap and fences. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Application } from '../../src/apps/index.js';
import type { AppReport, ResourceStatus, RunReport } from '../../src/controller/index.js';
import { diffDocumentApp, hasDifferences, renderDiffNames, renderDiffText } from '../../src/output/diff.js';
import { renderDiffMarkdown } from '../../src/output/diff-markdown.js';

const ESC = '\u001b[';

function resource(name: string, diffText: string, extra: Partial<ResourceStatus> = {}): ResourceStatus {
  return {
    group: 'apps',
    version: 'v1',
    kind: 'Deployment',
    namespace: 'shop',
    name,
    status: 'OutOfSync',
    difference: 'modified',
    requiresPruning: false,
    changes: [],
    diffText,
    ...extra,
  };
}

function app(name: string, resources: ResourceStatus[], error?: string): AppReport {
  return {
    app: { name } as Application,
    destination: { server: 'https://kubernetes.default.svc', namespace: 'shop', context: 'kind' },
    ...(error
      ? { error: { message: error, exitCode: 2 } }
      : {
          comparison: {
            revision: 'a'.repeat(40),
            resources,
            sync: resources.some((r) => r.status !== 'Synced') ? 'OutOfSync' : 'Synced',
            health: { status: 'Healthy' },
            conditions: [],
          },
        }),
  };
}

const DIFF =
  '--- live apps/Deployment shop/web\n+++ target apps/Deployment shop/web\n@@ -1 +1 @@\n-  replicas: 5\n+  replicas: 2\n';
const report = (apps: AppReport[]): RunReport => ({ apps, requests: 0, interrupted: false, durationMs: 0 });

describe('diff printers', () => {
  it('-o json: a multi-source app has "revisions", each source\'s in spec order (Argo CD\'s sync.revisions)', () => {
    const multi = app('multi', []);
    multi.app = { name: 'multi', multiSource: true } as Application;
    multi.comparison!.revisions = ['b'.repeat(40), 'c'.repeat(40)];
    assert.deepEqual(diffDocumentApp(multi)['revisions'], ['b'.repeat(40), 'c'.repeat(40)]);
    const single = app('single', []);
    single.comparison!.revisions = ['a'.repeat(40)];
    assert.equal('revisions' in diffDocumentApp(single), false);
  });

  it('colours only when asked: red live lines, green Git lines', () => {
    const r = report([app('web', [resource('web', DIFF)])]);
    const plain = renderDiffText(r, { color: false });
    assert.ok(!plain.includes(ESC));
    assert.match(plain, /^- {2}replicas: 5$/m);
    const coloured = renderDiffText(r, { color: true });
    assert.ok(coloured.includes(`${ESC}31m-  replicas: 5`), 'red');
    assert.ok(coloured.includes(`${ESC}32m+  replicas: 2`), 'green');
  });

  it('synced resources and failed apps print no diff; -o name lists changed resources only', () => {
    const r = report([
      app('web', [resource('web', DIFF), resource('db', '', { status: 'Synced', difference: 'none' })]),
      app('broken', [], 'app "broken": failed to render'),
    ]);
    assert.equal(renderDiffNames(r), 'web:apps/Deployment:shop/web\n');
    assert.ok(!renderDiffText(r).includes('broken'), 'errors go to stderr');
    assert.equal(hasDifferences(r), true);
    assert.equal(hasDifferences(report([app('db', [resource('db', '', { status: 'Synced' })])])), false);
  });

  it('markdown: summary first, fences longer than any backtick run, capped and closed', () => {
    const tricky = resource('tricky', `${DIFF}+  script: \`\`\`\`echo\n`);
    const big = Array.from({ length: 20 }, (_, i) => resource(`r${i}`, DIFF.repeat(30)));
    const r = report([app('tricky', [tricky]), app('big', big), app('broken', [], 'x | y')]);
    const full = renderDiffMarkdown(r, 1_000_000);
    assert.match(full, /^\| broken \| :x: error \| \| \| x \\\| y \|$/m);
    assert.match(full, /^`{5}diff$/m, 'fence longer than the 4 backticks inside');
    assert.ok(!full.includes('truncated'));
    const capped = renderDiffMarkdown(r, 4096);
    assert.ok(Buffer.byteLength(capped) <= 4096, `${Buffer.byteLength(capped)}`);
    assert.match(capped, /\| big \|/);
    assert.match(capped, /Output truncated: 1 app diff\(s\) cut or left out \(--max-output-bytes 4096\)/);
    assert.equal((capped.match(/<details>/g) ?? []).length, (capped.match(/<\/details>/g) ?? []).length);
    const fences = capped.match(/^`{3,}/gm) ?? [];
    assert.equal(fences.length % 2, 0, 'every code block closed');
  });

  // Issue 14: health messages were computed and then dropped from the text report.
  it('prints each resource health message under the health line, as argocd app get shows it', () => {
    const rollout = 'Waiting for rollout to finish: 0 of 1 updated replicas are available...';
    const r = report([
      app('web', [
        resource('web', DIFF, { health: { status: 'Progressing', message: rollout } }),
        resource('db', '', {
          status: 'Synced',
          difference: 'none',
          health: { status: 'Degraded', message: 'Deployment "db" exceeded its progress deadline' },
        }),
        resource('ok', '', { status: 'Synced', difference: 'none', health: { status: 'Healthy' } }),
      ]),
    ]);
    const lines = renderDiffText(r).split('\n');
    const at = lines.indexOf('health:      Healthy');
    assert.ok(at > 0, lines.join('\n'));
    assert.deepEqual(lines.slice(at + 1, at + 3), [
      `  apps/Deployment shop/web: Progressing: ${rollout}`,
      '  apps/Deployment shop/db: Degraded: Deployment "db" exceeded its progress deadline',
    ]);
    assert.ok(!lines.some((l) => l.includes('shop/ok:')), 'no line for a resource without a message');
  });
});
