import Ajv, { type ValidateFunction } from 'ajv';

/**
 * Validates values against tools' JSON Schemas with ajv (all errors). One
 * instance per app: compiled validators are cached by the schema's JSON text,
 * so a re-registration against an unchanged tool does not recompile.
 */
export class SchemaChecker {
  private readonly ajv = new Ajv({ allErrors: true, strict: false, validateSchema: false, logger: false });
  private readonly cache = new Map<string, ValidateFunction>();

  /**
   * One line per miss, each prefixed with `at` and ajv's instance path, e.g.
   * `tool_kwargs/url must be string`. `skipRequired` drops "must have required
   * property" misses (for static kwargs that a start_expr completes at fire).
   */
  check(schema: Record<string, unknown>, value: unknown, at: string, skipRequired = false): string[] {
    let validate: ValidateFunction;
    try {
      validate = this.compile(schema);
    } catch (err) {
      return [`${at}: the tool's JSON Schema does not compile: ${(err as Error).message}`];
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).filter((e) => !(skipRequired && e.keyword === 'required')).map((e) => `${at}${e.instancePath} ${e.message ?? 'is invalid'}`);
  }

  private compile(schema: Record<string, unknown>): ValidateFunction {
    const key = JSON.stringify(schema);
    let fn = this.cache.get(key);
    if (!fn) {
      // A `$schema` naming a draft ajv's default class does not load would make compile fail; the keywords still apply.
      const { $schema: _ignored, ...rest } = schema;
      fn = this.ajv.compile(rest);
      if (this.cache.size > 1000) this.cache.clear();
      this.cache.set(key, fn);
    }
    return fn;
  }
}
