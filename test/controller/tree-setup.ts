/** Shared by the resource-tree tests: a one-replica Deployment manifest, a source counting its renders. */
import { createSourceService } from '../../src/source/index.js';
import type { SourceService } from '../../src/source/index.js';

export const deploymentYaml = (name: string, image: string): string =>
  [
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata:',
    `  name: ${name}`,
    'spec:',
    '  replicas: 1',
    `  selector: { matchLabels: { app: ${name} } }`,
    '  template:',
    `    metadata: { labels: { app: ${name} } }`,
    '    spec:',
    `      containers: [{ name: main, image: "${image}" }]`,
    '',
  ].join('\n');

/** A source service counting the apps it renders. */
export function countingSource(cacheRoot: string): { source: SourceService; renders: () => number } {
  const inner = createSourceService({ cacheRoot });
  let renders = 0;
  const source: SourceService = {
    renderApp: (app) => {
      renders++;
      return inner.renderApp(app);
    },
    checkoutTree: (url, revision) => inner.checkoutTree(url, revision),
    forgetRevisions: (url) => inner.forgetRevisions?.(url),
    get stats() {
      return inner.stats;
    },
    close: () => inner.close(),
  };
  return { source, renders: () => renders };
}
