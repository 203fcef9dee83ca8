/**
 * A schema violation: what `validateObject` (validate.ts) and the metadata rules (validate-meta.ts) report
 * for one field, as kube-apiserver words it, and `formatViolation`, its one-line form. Imports nothing.
 */

export type ViolationReason =
  'FieldValueTypeInvalid' | 'FieldValueInvalid' | 'FieldValueRequired' | 'FieldValueNotSupported';

export interface SchemaViolation {
  reason: ViolationReason;
  /** Field path as the server writes it (`spec.replicas`, `spec.containers[0].name`, `data[key]`). */
  field: string;
  /** The field.Error text after the path (`Invalid value: "string": ... must be of type integer: "string"`). */
  message: string;
  /**
   * Built-in kinds only: the server fails to decode the body (400 BadRequest `<Kind> in version "<v>"
   * cannot be handled as a <Kind>: <decode>`) instead of answering 422.
   */
  decode?: string;
}

/** `<field>: <message>`: one violation as a line. */
export function formatViolation(v: SchemaViolation): string {
  return `${v.field}: ${v.message}`;
}
