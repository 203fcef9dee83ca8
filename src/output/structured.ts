/**
 * Machine-readable output: JSON (2-space indent) or YAML of a plain result object, and `jsonListChunks`,
 * the same JSON of a `{"<key>": [items]}` document written one item at a time (issue 23: a report of
 * thousands of apps is never held whole as one string).
 */
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

/**
 * The text of `JSON.stringify({ [key]: items.map(toJson) }, null, 2)` plus a newline, byte for byte, as
 * chunks: the opening, then one chunk per item (built when the consumer asks for it), then the closing.
 * Nested lines of an item get the item's indent (4 spaces); JSON text never holds a raw newline inside a
 * string, so indenting after each newline is exact.
 */
export function* jsonListChunks<T>(
  key: string,
  items: readonly T[],
  toJson: (item: T) => unknown,
): Generator<string> {
  if (items.length === 0) {
    yield `${JSON.stringify({ [key]: [] }, null, 2)}\n`;
    return;
  }
  yield `{\n  ${JSON.stringify(key)}: [\n`;
  for (let i = 0; i < items.length; i++) {
    const text = JSON.stringify(toJson(items[i]!), null, 2) ?? 'null';
    yield `    ${text.replace(/\n/g, '\n    ')}${i < items.length - 1 ? ',' : ''}\n`;
  }
  yield '  ]\n}\n';
}

/**
 * The `event` value a loop event has in the JSON lines users read (`sync --watch -o json`, the controller's
 * `-o json` log): the loop's `app-operation-start` / `app-operation-done` keep the names documented for
 * log shippers, `operation-start` / `operation-done` (docs/usage/watch.md); every other type is its own name.
 */
export function printedEventName(type: string): string {
  return PRINTED_EVENT_NAMES[type] ?? type;
}

const PRINTED_EVENT_NAMES: Readonly<Record<string, string>> = {
  'app-operation-start': 'operation-start',
  'app-operation-done': 'operation-done',
};
