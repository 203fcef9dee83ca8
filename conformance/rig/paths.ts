/**
 * Where the conformance rig keeps what it builds and runs (docs/conformance.md): everything under
 * `conformance/.work/` (gitignored), or under `$CONFORMANCE_WORK` when set.
 * - bin/    the Go binaries (kube-apiserver, kube-controller-manager, argocd) and their build stamps
 *           (`$CONFORMANCE_BIN` when set)
 * - run/    the state of one `up`: certificates, kubeconfigs, etcd's data, the pid file, git repositories
 * - logs/   one log per process, the audit log, and the build logs
 * - rig.json  the contract for the corpus runner, written when `up` is done and removed by `down`
 */
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `conformance/` of the checkout. */
export const CONFORMANCE_DIR = resolve(fileURLToPath(new URL('..', import.meta.url)));
export const REPO_ROOT = resolve(CONFORMANCE_DIR, '..');
export const WORK = resolve(process.env['CONFORMANCE_WORK'] ?? join(CONFORMANCE_DIR, '.work'));
/** `$CONFORMANCE_BIN` keeps the binaries elsewhere (CI keeps them across runs in the user's cache). */
export const BIN = resolve(process.env['CONFORMANCE_BIN'] ?? join(WORK, 'bin'));
export const RUN = join(WORK, 'run');
export const LOGS = join(WORK, 'logs');
export const RIG_JSON = join(WORK, 'rig.json');
/** Pids and start specs of the rig's processes (procs.ts). */
export const STATE_JSON = join(RUN, 'state.json');
export const GIT_ROOT = join(RUN, 'git');
export const ARGOCD_NAMESPACE = 'argocd';
/** The Node the kubelet stand-in registers and binds Pods to. */
export const NODE_NAME = 'conformance-node';
/**
 * A Pod carrying this annotation (value "true") is left alone by the kubelet stand-in: never bound, never
 * moved on, so the status a case writes through the status subresource is the one every side reads (the
 * corpus's recorded health vectors, conformance/cases/generate/health.ts).
 */
export const STANDIN_IGNORE_ANNOTATION = 'conformance.gitops.kubectl.io/recorded-status';
