/** Manifests of the controller tests, as YAML text (what Git holds). */
export const deployment = (
  name: string,
  extra: { replicas?: number; image?: string; paused?: boolean } = {},
): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  labels:
    app: ${name}
spec:
  replicas: ${extra.replicas ?? 2}
${extra.paused ? '  paused: true\n' : ''}  selector:
    matchLabels:
      app: ${name}
  template:
    metadata:
      labels:
        app: ${name}
    spec:
      containers:
      - name: ${name}
        image: ${extra.image ?? 'nginx:1.25'}
        ports:
        - containerPort: 80
        resources:
          limits:
            cpu: 1000m
            memory: 1Gi
`;

export const service = (name: string): string => `apiVersion: v1
kind: Service
metadata:
  name: ${name}
spec:
  selector:
    app: ${name}
  ports:
  - port: 80
    targetPort: 80
`;

/** An Ingress: no controller of either test server writes its status (health Progressing until one does). */
export const ingress = (name: string): string => `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: ${name}
spec:
  defaultBackend:
    service:
      name: ${name}
      port:
        number: 80
`;

export const configMap = (
  name: string,
  data: Record<string, string>,
  labels: Record<string, string> = {},
): string =>
  `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
${
  Object.keys(labels).length
    ? `  labels:\n${Object.entries(labels)
        .map(([k, v]) => `    ${k}: ${JSON.stringify(v)}\n`)
        .join('')}`
    : ''
}data:
${Object.entries(data)
  .map(([k, v]) => `  ${k}: ${JSON.stringify(v)}\n`)
  .join('')}`;

export const secret = (name: string, password: string): string => `apiVersion: v1
kind: Secret
metadata:
  name: ${name}
type: Opaque
stringData:
  password: ${JSON.stringify(password)}
  user: admin
`;

export const widget = (name: string): string => `apiVersion: example.com/v1
kind: Widget
metadata:
  name: ${name}
spec:
  size: 3
`;
