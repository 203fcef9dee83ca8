/**
 * Embedded API server benchmark: write throughput over HTTP (create, server-side apply), list latency of a
 * 10,000-object collection (whole and paged by 500 as kubectl does), and watch fan-out (events delivered
 * to 20 watchers). Figures inform; nothing is asserted.
 */
import type { BenchRow } from './run.js';
import { timeMs } from './util.js';
import { startEmbeddedCluster } from '../src/embedded/index.js';
import type { EmbeddedCluster } from '../src/embedded/index.js';

const NAMESPACES = 20;
const CONFIGMAPS = 10_000;
const DEPLOYMENTS = 2_000;
const WATCHERS = 20;
const UPDATES = 500;
const CONCURRENCY = 16;

async function pool(n: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

async function send(
  c: EmbeddedCluster,
  method: string,
  path: string,
  body: unknown,
  type = 'application/json',
) {
  const res = await fetch(`${c.url}${path}`, {
    method,
    headers: { 'Content-Type': type },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text;
}

const deployment = (i: number) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: `d${i}`, labels: { app: `d${i}` } },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: `d${i}` } },
    template: {
      metadata: { labels: { app: `d${i}` } },
      spec: {
        containers: [
          {
            name: 'main',
            image: 'nginx:1.25',
            ports: [{ containerPort: 80 }],
            env: [{ name: 'I', value: String(i) }],
          },
        ],
      },
    },
  },
});

async function watchFanout(c: EmbeddedCluster): Promise<number> {
  const list = JSON.parse(
    await (await fetch(`${c.url}/api/v1/namespaces/ns-0/configmaps?limit=1`)).text(),
  ) as {
    metadata: { resourceVersion: string };
  };
  const ctrl = new AbortController();
  const done = Array.from({ length: WATCHERS }, async () => {
    const res = await fetch(
      `${c.url}/api/v1/namespaces/ns-0/configmaps?watch=1&resourceVersion=${list.metadata.resourceVersion}`,
      {
        signal: ctrl.signal,
      },
    );
    const reader = res.body!.getReader();
    let lines = 0;
    while (lines < UPDATES) {
      const chunk = await reader.read();
      if (chunk.done) break;
      for (const b of chunk.value) if (b === 10) lines++;
    }
  });
  const { ms } = await timeMs(async () => {
    for (let i = 0; i < UPDATES; i++) {
      await send(
        c,
        'PATCH',
        '/api/v1/namespaces/ns-0/configmaps/cm-0',
        { data: { v: String(i) } },
        'application/merge-patch+json',
      );
    }
    await Promise.all(done);
  });
  ctrl.abort();
  return ms;
}

export default async function bench(): Promise<BenchRow[]> {
  const c = await startEmbeddedCluster({ watchHistory: 2000 });
  try {
    for (let n = 0; n < NAMESPACES; n++) {
      await send(c, 'POST', '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: `ns-${n}` },
      });
    }
    const create = await timeMs(() =>
      pool(CONFIGMAPS, (i) =>
        send(c, 'POST', `/api/v1/namespaces/ns-${i % NAMESPACES}/configmaps`, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `cm-${i}`, labels: { i: String(i % 10) } },
          data: { key: 'x'.repeat(64) },
        }).then(() => undefined),
      ),
    );
    const apply = await timeMs(() =>
      pool(DEPLOYMENTS, (i) =>
        send(
          c,
          'PATCH',
          `/apis/apps/v1/namespaces/ns-${i % NAMESPACES}/deployments/d${i}?fieldManager=bench`,
          deployment(i),
          'application/apply-patch+yaml',
        ).then(() => undefined),
      ),
    );
    const whole = await timeMs(async () => (await fetch(`${c.url}/api/v1/configmaps`)).text());
    const paged = await timeMs(async () => {
      let token = '';
      let pages = 0;
      do {
        const res = await fetch(
          `${c.url}/api/v1/configmaps?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ''}`,
        );
        const body = (await res.json()) as { metadata: { continue?: string } };
        token = body.metadata.continue ?? '';
        pages++;
      } while (token);
      return pages;
    });
    const fanoutMs = await watchFanout(c);
    return [
      {
        name: `create: ${CONFIGMAPS} ConfigMaps over HTTP (${CONCURRENCY} in flight)`,
        value: CONFIGMAPS / (create.ms / 1000),
        unit: 'obj/s',
      },
      {
        name: `server-side apply: ${DEPLOYMENTS} Deployments (defaults + managedFields)`,
        value: DEPLOYMENTS / (apply.ms / 1000),
        unit: 'obj/s',
      },
      { name: `list ${CONFIGMAPS} ConfigMaps cluster-wide, one response`, value: whole.ms, unit: 'ms' },
      {
        name: `list ${CONFIGMAPS} ConfigMaps, pages of 500 (${paged.result} pages)`,
        value: paged.ms,
        unit: 'ms',
      },
      {
        name: `watch fan-out: ${UPDATES} patches to ${WATCHERS} watchers`,
        value: (UPDATES * WATCHERS) / (fanoutMs / 1000),
        unit: 'events/s',
      },
      { name: 'requests served', value: c.stats.total, unit: 'requests' },
    ];
  } finally {
    await c.close();
  }
}
