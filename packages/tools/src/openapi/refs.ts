/**
 * Inlines local `$ref`s (`#/components/...`) of an OpenAPI document so each
 * operation's schema stands alone for the model. A reference that points
 * back into itself becomes `{}` (any value), an external or broken one too;
 * a budget of nodes bounds what a document of nested references can expand to.
 */
export function inlineRefs(doc: unknown, value: unknown, budget = { nodes: 100_000 }): unknown {
  return walk(doc, value, new Set(), budget);
}

function walk(doc: unknown, value: unknown, open: Set<string>, budget: { nodes: number }): unknown {
  if (--budget.nodes < 0) return {};
  if (Array.isArray(value)) return value.map((v) => walk(doc, v, open, budget));
  if (value === null || typeof value !== 'object') return value;
  const obj = value as Record<string, unknown>;
  if (typeof obj.$ref === 'string') {
    const ref = obj.$ref;
    if (open.has(ref)) return {};
    const target = pointer(doc, ref);
    if (target === undefined) return {};
    open.add(ref);
    try {
      return walk(doc, target, open, budget);
    } finally {
      open.delete(ref);
    }
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    // defineProperty: a `__proto__` key in a document stays a plain key.
    Object.defineProperty(out, k, { value: walk(doc, v, open, budget), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Resolves `#/a/b~1c` in the document; undefined for anything else. */
function pointer(doc: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let cur: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, key)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}
