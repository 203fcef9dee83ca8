/**
 * The rig's Git server: the real `git http-backend` on loopback (test/support/git-http.ts), anonymous,
 * serving the bare repositories cases create under the rig's gitRoot as `<gitBaseUrl>/<name>.git`.
 *
 * Usage: node --import tsx conformance/rig/git-server.ts <gitRoot> <port>
 */
import { GitHttpServer } from '../../test/support/git-http.js';

const [root, port] = process.argv.slice(2);
if (!root || !port) {
  console.error('usage: git-server.ts <gitRoot> <port>');
  process.exit(2);
}
const server = new GitHttpServer(root, 'anonymous');
await server.start(Number(port));
console.log(`${new Date().toISOString()} git http-backend serving ${root} at ${server.url('')}`);
for (const sig of ['SIGTERM', 'SIGINT'] as const) {
  process.on(sig, () => {
    void server.stop().then(() => process.exit(0));
  });
}
