import { OPENAPI_DOCUMENT } from './index';

type Obj = Record<string, unknown>;
/** The generated document's components: HookInput and what it names come from the declarations (@hookyard/api). */
const SCHEMAS = (OPENAPI_DOCUMENT.components as { schemas: Record<string, Obj> }).schemas;
const COMPONENT_REF = '#/components/schemas/';

/** Component names a schema refers to, transitively (so $defs holds exactly what is used). */
function referenced(schema: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const v of schema) referenced(v, out);
  else if (schema && typeof schema === 'object') {
    for (const [k, v] of Object.entries(schema as Obj)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith(COMPONENT_REF)) {
        const name = v.slice(COMPONENT_REF.length);
        if (!out.has(name)) {
          out.add(name);
          referenced(SCHEMAS[name], out);
        }
      } else referenced(v, out);
    }
  }
  return out;
}

/** A copy with component refs pointing into $defs. */
function rewrite(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rewrite);
  if (schema && typeof schema === 'object') {
    return Object.fromEntries(
      Object.entries(schema as Obj).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? v.replace(COMPONENT_REF, '#/$defs/') : rewrite(v)]),
    );
  }
  return schema;
}

/**
 * The JSON Schema of a hook registration (`GET /api/hooks/schema`): the
 * HookInput component made standalone, its refs in `$defs`. Every jq field
 * carries `x-tai42-expression` (its input, what its result is consumed as,
 * the variables it binds), so an editor finds the expressions without a list.
 */
export const HOOK_JSON_SCHEMA: Obj = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'urn:hookyard:hook',
  title: 'Hookyard hook',
  ...(rewrite(SCHEMAS.HookInput) as Obj),
  $defs: Object.fromEntries([...referenced(SCHEMAS.HookInput)].sort().map((name) => [name, rewrite(SCHEMAS[name])])),
};
