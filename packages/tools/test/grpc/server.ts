import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { readFileSync } from 'node:fs';
import { createConnection, createServer, type Socket } from 'node:net';
import { join } from 'node:path';

export const CATALOG_PROTO_PATH = join(__dirname, 'fixtures', 'catalog.proto');
export const CATALOG_PROTO_TEXT = readFileSync(CATALOG_PROTO_PATH, 'utf8');

export interface TestServer {
  port: number;
  endpoint: string;
  /** Metadata of the last CreateItem call. */
  lastMetadata: grpc.Metadata | undefined;
  /** The last CreateItem request as the server decoded it (proto field names). */
  lastRequest: Record<string, unknown> | undefined;
  /** Reflection streams opened so far: one or more per discovery, none for a cached answer. */
  reflectionStreams: number;
  close(): Promise<void>;
}

type Unary = grpc.handleUnaryCall<Record<string, unknown>, Record<string, unknown>>;

/**
 * A real grpc-js server on 127.0.0.1:<ephemeral> serving the Catalog fixture,
 * with server reflection unless `reflection: false`. The handlers decode with
 * the server's own proto-loader options, so what they see is what a real
 * service built from the same .proto would see.
 */
export async function startCatalogServer(opts: { reflection?: boolean } = {}): Promise<TestServer> {
  const definition = protoLoader.loadSync(CATALOG_PROTO_PATH, { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true });
  const pkg = grpc.loadPackageDefinition(definition) as unknown as {
    hookyard: { test: { Catalog: { service: grpc.ServiceDefinition }; Health: { service: grpc.ServiceDefinition } } };
  };
  const server = new grpc.Server();
  const hanging = new Set<() => void>();
  const state: TestServer = { port: 0, endpoint: '', lastMetadata: undefined, lastRequest: undefined, reflectionStreams: 0, close: async () => undefined };

  const createItem: Unary = (call, callback) => {
    state.lastMetadata = call.metadata;
    state.lastRequest = call.request;
    const item = call.request.item as Record<string, unknown>;
    const seen = ['x-tenant', 'idempotency-key'].map((k) => `${k}=${String(call.metadata.get(k)[0] ?? '')}`).join(';');
    callback(null, { item, id: `item-${String(item.name)}`, seen_metadata: seen });
  };
  const fail: Unary = (call, callback) => {
    callback({ code: call.request.code as number, details: call.request.message as string }, null);
  };
  const hang: Unary = (call, callback) => {
    // Never answers on its own: the caller's deadline (or cancel) ends it; close() releases the rest.
    const release = () => callback(null, {});
    hanging.add(release);
    call.on('cancelled', () => hanging.delete(release));
  };
  server.addService(pkg.hookyard.test.Catalog.service, {
    CreateItem: createItem,
    Fail: fail,
    Hang: hang,
    WatchItems: (call: grpc.ServerWritableStream<unknown, unknown>) => call.end(),
    UploadItems: (_call: unknown, callback: grpc.sendUnaryData<unknown>) => callback(null, {}),
  });
  server.addService(pkg.hookyard.test.Health.service, { Check: ((_call, callback) => callback(null, {})) as Unary });
  if (opts.reflection !== false) {
    // The reflection handlers, each stream counted as it opens.
    new ReflectionService(definition).addToServer({
      addService: (service, impl) =>
        server.addService(
          service,
          Object.fromEntries(
            Object.entries(impl).map(([name, handler]) => [
              name,
              (...args: unknown[]) => {
                state.reflectionStreams++;
                return (handler as (...a: unknown[]) => unknown)(...args);
              },
            ]),
          ),
        ),
    });
  }

  state.port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port))),
  );
  state.endpoint = `grpc://127.0.0.1:${state.port}`;
  state.close = async () => {
    for (const release of hanging) release();
    hanging.clear();
    await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
  };
  return state;
}

/** A port nothing listens on: bound by a server that is then shut down. */
export async function deadEndpoint(): Promise<string> {
  const server = new grpc.Server();
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
  return `grpc://127.0.0.1:${port}`;
}

export interface Relay {
  port: number;
  /** The client connections open now. */
  open: Set<Socket>;
  close(): Promise<void>;
}

/** A TCP relay on 127.0.0.1 in front of `port`, so a test sees the connections a client holds open. */
export async function startRelay(port: number): Promise<Relay> {
  const open = new Set<Socket>();
  const relay = createServer((socket) => {
    open.add(socket);
    const upstream = createConnection(port, '127.0.0.1');
    socket.pipe(upstream).pipe(socket);
    const end = () => {
      open.delete(socket);
      socket.destroy();
      upstream.destroy();
    };
    socket.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  return {
    port: (relay.address() as { port: number }).port,
    open,
    close: async () => {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => relay.close(() => resolve()));
    },
  };
}
