/**
 * Printers of Ingress (networking.k8s.io) and of RoleBinding and ClusterRoleBinding (rbac): kube-apiserver's
 * printers.go columns and cells, as data by group/kind (the rules: table.ts).
 */
import type { KObject } from '../types.js';
import type { Printer } from './cells.js';
import { list, maps, str, at, loadBalancerAddresses, NAME, AGE, col, name, age } from './cells.js';

/** printers.go `formatHosts`: the first three rule hosts, `*` when none. */
function ingressHosts(o: KObject): string {
  const rules = maps(at(o, 'spec.rules'));
  const hosts: string[] = [];
  let more = false;
  for (const r of rules) {
    if (hosts.length === 3) more = true;
    if (!more && str(r['host'])) hosts.push(str(r['host']));
  }
  if (!hosts.length) return '*';
  return more ? `${hosts.join(',')} + ${rules.length - 3} more...` : hosts.join(',');
}

/** rbac `SubjectsStrings` as printRoleBinding joins them: users, groups, service accounts. */
function subjects(o: KObject): [string, string, string] {
  const users: string[] = [];
  const groups: string[] = [];
  const sas: string[] = [];
  for (const s of maps(o['subjects'])) {
    if (s['kind'] === 'User') users.push(str(s['name']));
    else if (s['kind'] === 'Group') groups.push(str(s['name']));
    else if (s['kind'] === 'ServiceAccount') sas.push(`${str(s['namespace'])}/${str(s['name'])}`);
  }
  return [users.join(', '), groups.join(', '), sas.join(', ')];
}

const ROLE_BINDING: Printer = {
  columns: [
    NAME,
    col('Role', 'string', 'RoleRef can only reference a Role or ClusterRole.'),
    AGE,
    col('Users', 'string', 'Users in the roleBinding', 1),
    col('Groups', 'string', 'Groups in the roleBinding', 1),
    col('ServiceAccounts', 'string', 'ServiceAccounts in the roleBinding', 1),
  ],
  cells: (o) => [
    name(o),
    `${str(at(o, 'roleRef.kind'))}/${str(at(o, 'roleRef.name'))}`,
    age(o),
    ...subjects(o),
  ],
};

export const NETWORKING_RBAC_PRINTERS: Record<string, Printer> = {
  'networking.k8s.io/Ingress': {
    columns: [
      NAME,
      col(
        'Class',
        'string',
        'The name of the IngressClass resource that should be used for additional configuration',
      ),
      col('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule'),
      col('Address', 'string', 'Address is a list containing ingress points for the load-balancer'),
      col('Ports', 'string', 'Ports of TLS configurations that open'),
      AGE,
    ],
    cells: (o) => [
      name(o),
      str(at(o, 'spec.ingressClassName')) || '<none>',
      ingressHosts(o),
      loadBalancerAddresses(o['status']),
      list(at(o, 'spec.tls')).length ? '80, 443' : '80',
      age(o),
    ],
  },
  'rbac.authorization.k8s.io/RoleBinding': ROLE_BINDING,
  'rbac.authorization.k8s.io/ClusterRoleBinding': ROLE_BINDING,
};
