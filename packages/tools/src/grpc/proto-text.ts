import * as protobuf from 'protobufjs';

export type ProtoTextResult = { ok: true; root: protobuf.Root; services: string[] } | { ok: false; errors: string[] };

/** What `common` provides: the well-known types a registered .proto may import. */
const commonFiles = protobuf.common as unknown as Record<string, protobuf.INamespace | undefined>;

/**
 * Parses the `.proto` text of a record into a resolved root. The text must be
 * self-contained: it may import only the well-known types
 * (`google/protobuf/{timestamp,duration,wrappers,struct,empty,any,field_mask}.proto`),
 * since a stored record has no file system to resolve other imports against.
 * Field names keep their proto spelling; the JSON names are derived later.
 */
export function parseProtoText(text: string): ProtoTextResult {
  const root = new protobuf.Root();
  let parsed: protobuf.IParserResult;
  try {
    parsed = protobuf.parse(text, root, { keepCase: true, alternateCommentMode: true });
  } catch (err) {
    return { ok: false, errors: [err instanceof Error ? err.message : String(err)] };
  }
  const errors: string[] = [];
  for (const file of [...(parsed.imports ?? []), ...(parsed.weakImports ?? [])]) {
    const json = commonFiles[file];
    if (!json || typeof json !== 'object') {
      errors.push(`imports ${JSON.stringify(file)}; only the google/protobuf well-known types can be imported (register one self-contained file)`);
      continue;
    }
    try {
      root.addJSON(json.nested ?? {});
    } catch {
      // Already added through another import of the same namespace: nothing to do.
    }
  }
  if (errors.length > 0) return { ok: false, errors };
  try {
    root.resolveAll();
  } catch (err) {
    return { ok: false, errors: [err instanceof Error ? err.message : String(err)] };
  }
  return { ok: true, root, services: serviceNames(root) };
}

/** Every service in a root, by fully-qualified name without the leading dot. */
export function servicesOf(root: protobuf.Root): protobuf.Service[] {
  const out: protobuf.Service[] = [];
  const walk = (ns: protobuf.NamespaceBase) => {
    for (const child of ns.nestedArray) {
      if (child instanceof protobuf.Service) out.push(child);
      if (child instanceof protobuf.Namespace || child instanceof protobuf.Type) walk(child);
    }
  };
  walk(root);
  return out;
}

export function serviceNames(root: protobuf.Root): string[] {
  return servicesOf(root).map((s) => s.fullName.replace(/^\./, ''));
}
