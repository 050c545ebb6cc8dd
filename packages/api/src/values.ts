/**
 * The enumerations the API's schemas take, as plain values with no import, so
 * the console can bundle them (`@hookyard/api/values`) without TypeBox or any
 * schema. Kept here rather than imported from @hookyard/core, which this
 * package does not depend on; test/api keeps them equal to core's.
 */

/** core's ERROR_KINDS. */
export const ERROR_KIND_VALUES = [
  'bad_input',
  'unauthorized',
  'forbidden',
  'not_found',
  'conflict',
  'cancelled',
  'unavailable',
  'timeout',
  'internal',
  'outcome_unknown',
  'operator_failed',
] as const;
