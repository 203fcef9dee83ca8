/**
 * Certificates and keys made at start-up with openssl (Debian's), into run/pki: a CA, the
 * kube-apiserver's serving certificate (127.0.0.1, localhost and the in-cluster `kubernetes.default.svc`
 * names), one client certificate per user of the API (so the audit log tells who wrote what), the
 * service-account signing key pair; and a kubeconfig per user with everything embedded.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ClientUser {
  /** File stem and kubeconfig user name. */
  id: string;
  /** Certificate CN: the user name the API server (and the audit log) sees. */
  cn: string;
  /** Certificate O: groups. */
  groups: string[];
}

/**
 * The API's users. The admin and Argo CD are cluster admins (system:masters) as in a usual install; the
 * controller manager has the bootstrap RBAC role of its well-known name (and uses per-controller service
 * accounts); the kubelet stand-in is a cluster admin too, since it plays the scheduler (bindings) as well.
 */
export const USERS: ClientUser[] = [
  { id: 'admin', cn: 'conformance-admin', groups: ['system:masters'] },
  { id: 'kube-controller-manager', cn: 'system:kube-controller-manager', groups: [] },
  { id: 'argocd', cn: 'argocd-application-controller', groups: ['system:masters'] },
  { id: 'kubelet', cn: 'conformance-kubelet-standin', groups: ['system:masters'] },
];

export interface Pki {
  dir: string;
  caCert: string;
  caKey: string;
  serverCert: string;
  serverKey: string;
  saKey: string;
  saPub: string;
  client(id: string): { cert: string; key: string };
}

function openssl(dir: string, args: string[]): void {
  try {
    execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    const err = e as { stderr?: Buffer; message: string };
    throw new Error(
      `certificates: failed to run openssl ${args[0]}: ${err.stderr?.toString().trim() || err.message}`,
    );
  }
}

function signed(dir: string, stem: string, subject: string, ext: string[]): void {
  openssl(dir, [
    'req',
    '-new',
    '-nodes',
    '-newkey',
    'rsa:2048',
    '-keyout',
    `${stem}.key`,
    '-out',
    `${stem}.csr`,
    '-subj',
    subject,
  ]);
  writeFileSync(join(dir, `${stem}.ext`), ext.join('\n') + '\n');
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${stem}.csr`,
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    `${stem}.crt`,
    '-days',
    '30',
    '-sha256',
    '-extfile',
    `${stem}.ext`,
  ]);
}

export function makePki(dir: string): Pki {
  mkdirSync(dir, { recursive: true });
  openssl(dir, [
    'req',
    '-x509',
    '-new',
    '-nodes',
    '-newkey',
    'rsa:2048',
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-days',
    '30',
    '-subj',
    '/CN=conformance-ca',
  ]);
  const sans = [
    'IP:127.0.0.1',
    'IP:10.96.0.1',
    'DNS:localhost',
    'DNS:kubernetes',
    'DNS:kubernetes.default',
    'DNS:kubernetes.default.svc',
    'DNS:kubernetes.default.svc.cluster.local',
  ];
  signed(dir, 'kube-apiserver', '/CN=kube-apiserver', [
    'basicConstraints=CA:FALSE',
    'keyUsage=critical,digitalSignature,keyEncipherment',
    'extendedKeyUsage=serverAuth',
    `subjectAltName=${sans.join(',')}`,
  ]);
  for (const u of USERS) {
    const subject = [...u.groups.map((g) => `/O=${g}`), `/CN=${u.cn}`].join('');
    signed(dir, u.id, subject, [
      'basicConstraints=CA:FALSE',
      'keyUsage=critical,digitalSignature,keyEncipherment',
      'extendedKeyUsage=clientAuth',
    ]);
  }
  openssl(dir, ['genrsa', '-out', 'sa.key', '2048']);
  openssl(dir, ['rsa', '-in', 'sa.key', '-pubout', '-out', 'sa.pub']);
  const p = (f: string): string => join(dir, f);
  return {
    dir,
    caCert: p('ca.crt'),
    caKey: p('ca.key'),
    serverCert: p('kube-apiserver.crt'),
    serverKey: p('kube-apiserver.key'),
    saKey: p('sa.key'),
    saPub: p('sa.pub'),
    client: (id) => ({ cert: p(`${id}.crt`), key: p(`${id}.key`) }),
  };
}

/** A kubeconfig for one user, certificates embedded; its context's namespace is `namespace`. */
export function writeKubeconfig(
  file: string,
  pki: Pki,
  server: string,
  userId: string,
  namespace: string,
): void {
  const b64 = (f: string): string => readFileSync(f).toString('base64');
  const c = pki.client(userId);
  const text = [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '  - name: conformance',
    '    cluster:',
    `      server: ${server}`,
    `      certificate-authority-data: ${b64(pki.caCert)}`,
    'users:',
    `  - name: ${userId}`,
    '    user:',
    `      client-certificate-data: ${b64(c.cert)}`,
    `      client-key-data: ${b64(c.key)}`,
    'contexts:',
    '  - name: conformance',
    '    context:',
    '      cluster: conformance',
    `      user: ${userId}`,
    `      namespace: ${namespace}`,
    'current-context: conformance',
    '',
  ].join('\n');
  writeFileSync(file, text, { mode: 0o600 });
}
