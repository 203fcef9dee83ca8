/**
 * `withTreeErrors(nodes, reports)`: a run's app reports (src/controller) with the app tree's failed nodes
 * (tree.ts: a child Application that failed to load, an app that failed to render) in their places, in
 * tree order, each with its own error: `diff --recursive` lists every app of an app-of-apps, the parent
 * and every child, in text (one error line each) and in `-o json` (`"error"`).
 */
import type { AppReport } from '../controller/index.js';
import type { TreeNode } from './tree.js';

export /** The run's reports with the tree's failed nodes in their places (tree order), each with its error. */
function withTreeErrors(nodes: readonly TreeNode[], reports: readonly AppReport[]): AppReport[] {
  const byApp = new Map(reports.map((r) => [r.app, r]));
  const placed = nodes.flatMap((n): AppReport[] => {
    const r = byApp.get(n.app);
    if (r) {
      byApp.delete(n.app);
      return [r];
    }
    if (!n.error) return [];
    const d = n.app.destination;
    return [
      {
        app: n.app,
        destination: {
          ...(d.server ? { server: d.server } : {}),
          ...(d.name ? { name: d.name } : {}),
          namespace: d.namespace,
        },
        error: {
          message: n.error.message,
          exitCode: n.error.exitCode,
          ...(n.error.hint ? { hint: n.error.hint } : {}),
        },
      },
    ];
  });
  return [...placed, ...byApp.values()];
}
