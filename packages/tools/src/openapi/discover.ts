import { Worker } from 'node:worker_threads';
import { HookyardError, cancelled, quote } from '@hookyard/core';
import type { SchemaDialect } from './json-schema';
import { operationOf, slimDocument, slimModulePath, type OpenApiOperation, type OpenApiService, type SlimOperation } from './operations';

/** Documents above this many bytes are decoded and parsed in a worker: JSON.parse of 1 MB is a few ms, of 13 MB about 100. */
const WORKER_ABOVE_BYTES = 1024 * 1024;
/** Slim operations per message from the worker: each batch parses in a short step. */
const WORKER_BATCH = 50;
/** Longest stretch of converting operations before the event loop gets a turn. */
const STEP_MS = 8;

/** Why a document cannot be used: `not_json` and `not_openapi` are the service's answer, not a passing failure. */
export class OpenApiDocumentError extends HookyardError {
  constructor(
    readonly reason: 'not_json' | 'not_openapi',
    message: string,
  ) {
    super('unavailable', message);
    this.name = 'OpenApiDocumentError';
  }
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * An OpenAPI document's text as a service: parsed and slimmed (references of
 * parameters and request bodies inlined, the rest dropped) in a worker thread
 * when the text is large, then each operation's schema converted to JSON
 * Schema on this thread in steps of a few milliseconds, so discovering a 13 MB
 * document never holds the event loop for long. `what` names the document in
 * errors; `signal` stops the work (the worker is terminated).
 */
export async function readOpenApiDocument(what: string, bytes: Uint8Array, signal?: AbortSignal): Promise<OpenApiService> {
  const slim =
    bytes.byteLength > WORKER_ABOVE_BYTES
      ? await slimInWorker(what, bytes, signal)
      : slimHere(what, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  const operations: OpenApiOperation[] = [];
  let since = performance.now();
  for await (const batch of slim.batches()) {
    for (const op of batch) {
      operations.push(operationOf(op, slim.version));
      if (performance.now() - since > STEP_MS) {
        await turn();
        if (signal?.aborted) throw cancelled(`${what}: discovery stopped`);
        since = performance.now();
      }
    }
  }
  return { basePath: slim.basePath, operations };
}

interface Slimmed {
  version: SchemaDialect;
  basePath: string;
  batches(): AsyncIterable<SlimOperation[]>;
}

/** `start`: the document's first characters (a worker sends only those back). */
function notJson(what: string, start: string, reason: string): OpenApiDocumentError {
  return new OpenApiDocumentError('not_json', `${what} is not JSON (${reason}): ${quote(start)}`);
}

function slimHere(what: string, text: string): Slimmed {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw notJson(what, text, (err as Error).message);
  }
  const slimmed = slimDocument(doc);
  if ('error' in slimmed) throw new OpenApiDocumentError('not_openapi', `${what} is not usable: ${slimmed.error}`);
  return {
    version: slimmed.version,
    basePath: slimmed.basePath,
    batches: async function* () {
      yield slimmed.operations;
    },
  };
}

/**
 * The worker sends a head, then batches of operations as JSON text. Batches
 * are taken one at a time: the next one waits in the worker's message queue
 * until this thread has converted the last.
 */
async function slimInWorker(what: string, bytes: Uint8Array, signal?: AbortSignal): Promise<Slimmed> {
  // The bytes move to the worker (transferred, not copied): this thread neither decodes nor parses them.
  const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
  const worker = new Worker(slimModulePath('slim-worker.js'), { workerData: { bytes: own, batch: WORKER_BATCH }, transferList: [own.buffer as ArrayBuffer] });
  const queue: string[] = [];
  let done = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const head = new Promise<{ version: SchemaDialect; basePath: string }>((resolve, reject) => {
    worker.on(
      'message',
      (msg: { head?: { version: SchemaDialect; basePath: string }; ops?: string; done?: boolean; error?: string; json?: boolean; start?: string }) => {
        if (msg.head) resolve(msg.head);
        else if (msg.ops !== undefined) queue.push(msg.ops);
        else if (msg.done) done = true;
        else if (msg.error !== undefined) {
          failure =
            msg.json === false ? notJson(what, msg.start ?? '', msg.error) : new OpenApiDocumentError('not_openapi', `${what} is not usable: ${msg.error}`);
          reject(failure);
        }
        notify();
      },
    );
    worker.on('error', (err: unknown) => {
      // A worker can throw anything, not only an Error (@types/node 24 types it `any`).
      failure = new HookyardError('internal', `${what}: the discovery worker failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      reject(failure);
      notify();
    });
    worker.on('exit', (code) => {
      if (!done && !failure) {
        failure = new HookyardError('internal', `${what}: the discovery worker exited with code ${code} before it finished`);
        reject(failure);
      }
      notify();
    });
  });
  const stop = () => void worker.terminate();
  signal?.addEventListener('abort', stop, { once: true });
  let h: { version: SchemaDialect; basePath: string };
  try {
    h = await head;
  } catch (err) {
    signal?.removeEventListener('abort', stop);
    void worker.terminate();
    throw err;
  }

  async function next(): Promise<SlimOperation[] | undefined> {
    for (;;) {
      if (queue.length > 0) return JSON.parse(queue.shift()!) as SlimOperation[];
      if (failure) throw failure;
      if (done) return undefined;
      if (signal?.aborted) throw cancelled(`${what}: discovery stopped`);
      await new Promise<void>((resolve) => (wake = resolve));
    }
  }

  return {
    ...h,
    async *batches() {
      try {
        for (let batch = await next(); batch; batch = await next()) yield batch;
      } finally {
        signal?.removeEventListener('abort', stop);
        void worker.terminate();
      }
    },
  };
}
