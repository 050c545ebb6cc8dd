import * as grpc from '@grpc/grpc-js';
import * as protobuf from 'protobufjs';
import * as descriptor from 'protobufjs/ext/descriptor';
import { protoJsonName } from './json-names';
import { grpcStatusError } from './status';

/**
 * The messages of the server reflection protocol (grpc/reflection/v1). v1alpha
 * uses the same messages under another package, so only the path differs.
 * Embedded rather than read from a file: nothing to ship next to `dist/`.
 */
const REFLECTION_PROTO = `
syntax = "proto3";
package grpc.reflection.v1;
message ServerReflectionRequest {
  string host = 1;
  oneof message_request {
    string file_by_filename = 3;
    string file_containing_symbol = 4;
    string all_extension_numbers_of_type = 6;
    string list_services = 7;
  }
}
message ServerReflectionResponse {
  string valid_host = 1;
  ServerReflectionRequest original_request = 2;
  oneof message_response {
    FileDescriptorResponse file_descriptor_response = 4;
    ListServiceResponse list_services_response = 6;
    ErrorResponse error_response = 7;
  }
}
message FileDescriptorResponse { repeated bytes file_descriptor_proto = 1; }
message ListServiceResponse { repeated ServiceResponse service = 1; }
message ServiceResponse { string name = 1; }
message ErrorResponse { int32 error_code = 1; string error_message = 2; }
`;

const REFLECTION_PATHS = [
  '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo',
  '/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo',
] as const;

interface ReflectionRequest {
  file_by_filename?: string;
  file_containing_symbol?: string;
  list_services?: string;
}
interface ReflectionResponse {
  file_descriptor_response?: { file_descriptor_proto?: Uint8Array[] };
  list_services_response?: { service?: { name?: string }[] };
  error_response?: { error_code?: number; error_message?: string };
}
interface FileProto {
  name?: string;
  package?: string;
  dependency?: string[];
  messageType?: MessageProto[];
}
interface MessageProto {
  name?: string;
  options?: { mapEntry?: boolean } | null;
  field?: { name?: string; jsonName?: string }[];
  nestedType?: MessageProto[];
}

let messages: { request: protobuf.Type; response: protobuf.Type } | undefined;
function reflectionMessages(): { request: protobuf.Type; response: protobuf.Type } {
  if (!messages) {
    const { root } = protobuf.parse(REFLECTION_PROTO, { keepCase: true });
    messages = {
      request: root.lookupType('grpc.reflection.v1.ServerReflectionRequest'),
      response: root.lookupType('grpc.reflection.v1.ServerReflectionResponse'),
    };
  }
  return messages;
}

/** What reflection found: the services (fully-qualified) and a root that resolves their types. */
export interface Reflected {
  root: protobuf.Root;
  services: string[];
}

/**
 * Asks a server for its services and the descriptors that define them
 * (`list_services`, `file_containing_symbol` per service, `file_by_filename`
 * for each dependency the server did not send along). Tries reflection v1,
 * then v1alpha when the server does not implement v1. Errors are
 * HookyardErrors by gRPC status.
 */
export async function reflect(client: grpc.Client, what: string, metadata: grpc.Metadata, timeoutMs: number): Promise<Reflected> {
  for (const [i, path] of REFLECTION_PATHS.entries()) {
    try {
      return await reflectOver(client, path, metadata, timeoutMs);
    } catch (err) {
      const unimplemented = (err as { code?: unknown } | null)?.code === grpc.status.UNIMPLEMENTED;
      if (!unimplemented || i === REFLECTION_PATHS.length - 1) throw grpcStatusError(`server reflection of ${what}`, err);
    }
  }
  throw new Error('unreachable');
}

async function reflectOver(client: grpc.Client, path: string, metadata: grpc.Metadata, timeoutMs: number): Promise<Reflected> {
  const { request, response } = reflectionMessages();
  const stream = client.makeBidiStreamRequest<ReflectionRequest, ReflectionResponse>(
    path,
    (req) => Buffer.from(request.encode(req).finish()),
    (buf) => response.toObject(response.decode(buf), { defaults: false }),
    metadata.clone(),
    { deadline: Date.now() + timeoutMs },
  );
  const session = new Session(stream);
  try {
    const listed = await session.ask({ list_services: '' });
    const services = (listed.list_services_response?.service ?? []).map((s) => s.name ?? '').filter((n) => n !== '' && !n.startsWith('grpc.reflection.'));
    const files = new Map<string, FileProto>();
    const add = (res: ReflectionResponse) => {
      for (const bytes of res.file_descriptor_response?.file_descriptor_proto ?? []) {
        const file = descriptor.FileDescriptorProto.decode(bytes) as unknown as FileProto;
        if (file.name && !files.has(file.name)) files.set(file.name, file);
      }
    };
    for (const s of services) add(await session.ask({ file_containing_symbol: s }));
    for (let missing = missingDeps(files); missing.length > 0; missing = missingDeps(files)) {
      for (const name of missing) {
        const res = await session.ask({ file_by_filename: name });
        add(res);
        // A server that cannot find a dependency answered with an error already thrown by ask.
        if (!files.has(name)) files.set(name, { name });
      }
    }
    const root = (protobuf.Root as unknown as { fromDescriptor(d: unknown): protobuf.Root }).fromDescriptor({ file: [...files.values()] });
    root.resolveAll();
    repairFromDescriptors(root, [...files.values()]);
    return { root, services };
  } finally {
    session.close();
  }
}

function missingDeps(files: Map<string, FileProto>): string[] {
  const out = new Set<string>();
  for (const f of files.values()) for (const d of f.dependency ?? []) if (!files.has(d)) out.add(d);
  return [...out];
}

/**
 * What `Root.fromDescriptor` loses, put back: a map field arrives as a
 * repeated `XEntry` message (the wire form) and must become a map again to
 * read and write as a JSON object; `json_name` is dropped, so a field whose
 * JSON name differs from the derived one gets it back as an option.
 */
function repairFromDescriptors(root: protobuf.Root, files: FileProto[]): void {
  const entries = new Set<string>();
  const visit = (prefix: string, m: MessageProto) => {
    const full = `${prefix}.${m.name ?? ''}`;
    if (m.options?.mapEntry) entries.add(full);
    const type = root.lookup(full);
    if (type instanceof protobuf.Type) {
      for (const f of m.field ?? []) {
        const field = f.name ? type.fields[f.name] : undefined;
        if (field && f.jsonName && f.jsonName !== protoJsonName(f.name ?? '')) field.options = { ...field.options, json_name: f.jsonName };
      }
    }
    for (const n of m.nestedType ?? []) visit(full, n);
  };
  for (const file of files) for (const m of file.messageType ?? []) visit(file.package ? `.${file.package}` : '', m);
  if (entries.size === 0) return;
  const walk = (ns: protobuf.NamespaceBase) => {
    for (const child of ns.nestedArray) {
      if (child instanceof protobuf.Type) {
        for (const field of [...child.fieldsArray]) {
          const entry = field.resolvedType;
          if (!field.repeated || !(entry instanceof protobuf.Type) || !entries.has(entry.fullName)) continue;
          const key = entry.fieldsArray.find((f) => f.id === 1);
          const value = entry.fieldsArray.find((f) => f.id === 2);
          if (!key || !value) continue;
          const map = new protobuf.MapField(field.name, field.id, key.type, value.resolvedType ? value.resolvedType.fullName : value.type, field.options);
          child.remove(field);
          child.add(map);
        }
      }
      if (child instanceof protobuf.Namespace || child instanceof protobuf.Type) walk(child);
    }
  };
  walk(root);
  root.resolveAll();
}

/** One reflection stream, asked one question at a time (answers come back in order). */
class Session {
  private readonly waiting: { resolve: (r: ReflectionResponse) => void; reject: (e: unknown) => void }[] = [];
  private failure: Error | undefined;

  constructor(private readonly stream: grpc.ClientDuplexStream<ReflectionRequest, ReflectionResponse>) {
    stream.on('data', (res: ReflectionResponse) => this.waiting.shift()?.resolve(res));
    stream.on('error', (err: unknown) => this.fail(err));
    stream.on('end', () => this.fail(Object.assign(new Error('reflection stream ended before answering'), { code: grpc.status.UNAVAILABLE })));
  }

  ask(req: ReflectionRequest): Promise<ReflectionResponse> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return new Promise<ReflectionResponse>((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.stream.write(req);
    }).then((res) => {
      const e = res.error_response;
      if (e)
        throw Object.assign(new Error(e.error_message ?? 'reflection error'), { code: e.error_code ?? grpc.status.UNKNOWN, details: e.error_message ?? '' });
      return res;
    });
  }

  private fail(err: unknown): void {
    if (this.failure === undefined) this.failure = err instanceof Error ? err : new Error(String(err));
    for (const w of this.waiting.splice(0)) w.reject(err);
  }

  close(): void {
    this.failure ??= new Error('closed');
    this.stream.cancel();
  }
}
