'use strict';
/**
 * Reduces an OpenAPI 3 document to what tools are made of: per operation its
 * method, path, operationId, summary, description, parameters (path-level
 * ones first) and request body, each with local `$ref`s inlined so it stands
 * alone. Responses, examples and every other part of the document are left
 * behind, which is most of a large document (GitHub's is 13 MB, its operations
 * 2 MB).
 *
 * Plain JavaScript on purpose: the same file runs in the main thread (small
 * documents, tests) and in the discovery worker (`slim-worker.js`) from `src`
 * under jest and from the built package, with no build step in between.
 *
 * slimDocument(doc) -> {version, basePath, operations: SlimOperation[]} | {error: string}
 *   SlimOperation: {key, method, path, summary, description, parameters: object[], requestBody?: object}
 */

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
/** Nodes one operation's inlined parts may expand to: a document of nested references stays bounded. */
const NODE_BUDGET = 100000;

const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const show = (v) => (v === undefined ? 'missing' : JSON.stringify(v));

/**
 * Inlines local `$ref`s (`#/components/...`). A reference that points back
 * into itself becomes `{}` (any value), an external or broken one too.
 */
function inlineRefs(doc, value, budget = { nodes: NODE_BUDGET }) {
  return walk(doc, value, new Set(), budget);
}

function walk(doc, value, open, budget) {
  if (--budget.nodes < 0) return {};
  if (Array.isArray(value)) return value.map((v) => walk(doc, v, open, budget));
  if (value === null || typeof value !== 'object') return value;
  if (typeof value.$ref === 'string') {
    const ref = value.$ref;
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
  const out = {};
  for (const k of Object.keys(value)) {
    // defineProperty: a `__proto__` key in a document stays a plain key.
    Object.defineProperty(out, k, { value: walk(doc, value[k], open, budget), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Resolves `#/a/b~1c` in the document; undefined for anything else. */
function pointer(doc, ref) {
  if (!ref.startsWith('#/')) return undefined;
  let cur = doc;
  for (const raw of ref.slice(2).split('/')) {
    let key;
    try {
      key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined;
    }
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, key)) return undefined;
    cur = cur[key];
  }
  return cur;
}

/**
 * Calls go to the registered endpoint, never to a host the document names:
 * only the path of a relative `servers[0].url` is kept.
 */
function basePathOf(servers) {
  const first = Array.isArray(servers) ? servers[0] : undefined;
  const url = isPlainObject(first) ? first.url : undefined;
  if (typeof url !== 'string' || !url.startsWith('/')) return '';
  return url.replace(/\/+$/, '');
}

function slimDocument(doc) {
  if (!isPlainObject(doc)) return { error: 'the document is not a JSON object' };
  if (doc.swagger !== undefined) {
    return {
      error: `Swagger ${show(doc.swagger)} documents are not supported: serve the API's OpenAPI 3 document (a Swagger 2.0 one converts to it, e.g. with swagger2openapi)`,
    };
  }
  if (typeof doc.openapi !== 'string' || !/^3\.[0-9]/.test(doc.openapi))
    return { error: `only OpenAPI 3 documents are supported, got openapi ${show(doc.openapi)}` };
  if (!isPlainObject(doc.paths)) return { error: 'the document has no paths object' };
  const operations = [];
  for (const path of Object.keys(doc.paths)) {
    // A path item may itself be a reference; its operations' responses are never walked.
    let item = doc.paths[path];
    if (isPlainObject(item) && typeof item.$ref === 'string') item = pointer(doc, item.$ref);
    if (!isPlainObject(item)) continue;
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    for (const method of METHODS) {
      const op = item[method];
      if (!isPlainObject(op)) continue;
      const own = Array.isArray(op.parameters) ? op.parameters : [];
      const budget = { nodes: NODE_BUDGET };
      const slim = {
        key: typeof op.operationId === 'string' && op.operationId !== '' ? op.operationId : `${method} ${path}`,
        method,
        path,
        summary: typeof op.summary === 'string' ? op.summary : '',
        description: typeof op.description === 'string' ? op.description : '',
        parameters: inlineRefs(doc, [...shared, ...own], budget),
      };
      if (op.requestBody !== undefined) slim.requestBody = inlineRefs(doc, op.requestBody, budget);
      operations.push(slim);
    }
  }
  return { version: doc.openapi.startsWith('3.0') ? '3.0' : '3.1', basePath: basePathOf(doc.servers), operations };
}

module.exports = { slimDocument, inlineRefs };
