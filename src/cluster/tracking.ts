/**
 * Which Application owns a live object, per Argo CD's resource tracking (spec §1, util/argo/resource_tracking.go).
 *
 * - `label` method: the value of the instance label (default `app.kubernetes.io/instance`).
 * - `annotation` (Argo CD's default) and `annotation+label`: the app part of the tracking-id annotation
 *   `argocd.argoproj.io/tracking-id` = `<app>:<group>/<kind>:<namespace>/<name>`; an id without exactly three
 *   colon-separated parts, or whose halves lack their "/", names no app.
 * - With an installation ID configured (argocd-cm `installationID`), the annotation methods own only objects
 *   whose `argocd.argoproj.io/installation-id` is that id (`getAppInstanceValue`); label tracking ignores it.
 * The app name is the instance name: `<appNamespace>_<appName>` outside the control-plane namespace.
 */
import type { KubeObject } from './types.js';

import {
  DEFAULT_TRACKING_METHOD,
  INSTALLATION_ID_ANNOTATION,
  INSTANCE_LABEL,
  TRACKING_ID_ANNOTATION,
  type TrackingMethod,
} from '../common/index.js';

export { INSTANCE_LABEL, TRACKING_ID_ANNOTATION, INSTALLATION_ID_ANNOTATION };
export type { TrackingMethod };

export interface TrackingOptions {
  /** Default 'annotation' (Argo CD's default when unset). */
  method?: TrackingMethod;
  /** Default `app.kubernetes.io/instance` (argocd-cm `application.instanceLabelKey`). */
  instanceLabelKey?: string;
  installationId?: string;
}

export interface TrackingId {
  app: string;
  group: string;
  kind: string;
  namespace: string;
  name: string;
}

/** Parses a tracking-id; undefined when malformed. */
export function parseTrackingId(id: string): TrackingId | undefined {
  const parts = id.split(':');
  if (parts.length !== 3) return undefined;
  const [app, gk, nsName] = parts as [string, string, string];
  const gkSlash = gk.indexOf('/');
  const nsSlash = nsName.indexOf('/');
  if (!app || gkSlash < 0 || nsSlash < 0) return undefined;
  return {
    app,
    group: gk.slice(0, gkSlash),
    kind: gk.slice(gkSlash + 1),
    namespace: nsName.slice(0, nsSlash),
    name: nsName.slice(nsSlash + 1),
  };
}

/** The instance name of the Application owning `obj`, or undefined when it is not tracked. */
export function owningApp(obj: KubeObject, options: TrackingOptions = {}): string | undefined {
  const meta = obj.metadata;
  const annotations = meta?.annotations;
  if ((options.method ?? DEFAULT_TRACKING_METHOD) === 'label') {
    // GetAppName: label tracking reads the label only; the installation id is an annotation-method check.
    return meta?.labels?.[options.instanceLabelKey ?? INSTANCE_LABEL] || undefined;
  }
  if (options.installationId && annotations?.[INSTALLATION_ID_ANNOTATION] !== options.installationId) {
    return undefined;
  }
  const id = annotations?.[TRACKING_ID_ANNOTATION];
  return id === undefined ? undefined : parseTrackingId(id)?.app;
}
