/** Machine-readable output: JSON (2-space indent) or YAML of a plain result object. */
import { stringify } from 'yaml';

export type StructuredFormat = 'json' | 'yaml';

export function renderStructured(value: unknown, format: StructuredFormat): string {
  if (format === 'json') return `${JSON.stringify(value, null, 2)}\n`;
  return stringify(value, { lineWidth: 0, aliasDuplicateObjects: false });
}
