import { buildOpenApiDocument } from './index';

type Obj = Record<string, unknown>;
const COMPONENT_REF = '#/components/schemas/';
let cached: Obj | undefined;

/** Component names a schema refers to, transitively (so $defs holds exactly what is used). */
function referenced(schemas: Record<string, Obj>, schema: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const v of schema) referenced(schemas, v, out);
  else if (schema && typeof schema === 'object') {
    for (const [k, v] of Object.entries(schema as Obj)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith(COMPONENT_REF)) {
        const name = v.slice(COMPONENT_REF.length);
        if (!out.has(name)) {
          out.add(name);
          referenced(schemas, schemas[name], out);
        }
      } else referenced(schemas, v, out);
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
 * Cut on the first request, from a document built for it and not kept.
 */
export function hookJsonSchema(): Obj {
  if (cached) return cached;
  // The generated document's components: HookInput and what it names come from the declarations (@hookyard/api).
  const schemas = (buildOpenApiDocument().components as { schemas: Record<string, Obj> }).schemas;
  return (cached = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'urn:hookyard:hook',
    title: 'Hookyard hook',
    ...(rewrite(schemas.HookInput) as Obj),
    $defs: Object.fromEntries([...referenced(schemas, schemas.HookInput)].sort().map((name) => [name, rewrite(schemas[name])])),
  });
}
