/** Machine-readable output: JSON (2-space indent) or YAML of a plain result object. */
import {
  stringify,
  type CreateNodeOptions,
  type DocumentOptions,
  type SchemaOptions,
  type ToStringOptions,
} from 'yaml';

/**
 * Options for every YAML document we print. kubectl and Go's YAML libraries read YAML 1.1, where plain
 * `yes`, `on` or `2026-01-01` are not strings; writing YAML 1.1 quotes such strings, so what we print can be
 * piped to `kubectl apply` and read back unchanged.
 */
export const YAML_OUT: DocumentOptions & SchemaOptions & CreateNodeOptions & ToStringOptions = {
  version: '1.1',
  lineWidth: 0,
  aliasDuplicateObjects: false,
};

export type StructuredFormat = 'json' | 'yaml';

export function renderStructured(value: unknown, format: StructuredFormat): string {
  if (format === 'json') return `${JSON.stringify(value, null, 2)}\n`;
  return stringify(value, YAML_OUT);
}
