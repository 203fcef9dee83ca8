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
  /**
   * Built-in kinds only: the same failure in the words of apimachinery's unstructured converter
   * (`runtime.DefaultUnstructuredConverter.FromUnstructured`), which decodes a strategic merge patch's
   * result instead of the JSON decoder (`unrecognized type: int32`, `cannot convert int64 to string`).
   */
  convert?: string;
}

/** `<field>: <message>`: one violation as a line. */
export function formatViolation(v: SchemaViolation): string {
  return `${v.field}: ${v.message}`;
}
