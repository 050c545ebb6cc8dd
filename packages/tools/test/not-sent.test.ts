/**
 * "A call that never left is not a call": the errors that provably happened
 * before any byte of the request was sent carry `notSent`, against real
 * sockets; an error after the request left does not.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { HookyardError, silentLogger, unavailable } from '@hookyard/core';
import { withDeadline } from '../src/http-call';
import { McpProvider } from '../src/mcp/mcp-provider';
import { ProviderRepo } from '../src/provider/provider-repo';
import { RemoteRepo } from '../src/remote/remote-repo';
import { testContext } from './support/context';
import { memoryToolStore } from './support/tool-store';

async function rejection(p: Promise<unknown>): Promise<HookyardError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof HookyardError) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

const call = (url: string) => withDeadline('tool t', 5_000, undefined, (signal) => fetch(url, { method: 'POST', body: '{"a":1}', signal }));

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

function listen(server: Server | ReturnType<typeof createNetServer>): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

describe('errors raised before a request left carry notSent', () => {
  it('connection refused', async () => {
    const e = await rejection(call(`http://127.0.0.1:${await closedPort()}/`));
    expect([e.kind, e.notSent]).toEqual(['unavailable', true]);
    expect(e.message).toContain('ECONNREFUSED');
  });

  it('a host DNS cannot resolve', async () => {
    const e = await rejection(call('http://no-such-host.invalid/'));
    expect([e.kind, e.notSent]).toEqual(['unavailable', true]);
    expect(e.message).toMatch(/ENOTFOUND|EAI_AGAIN/);
  });

  it('a TLS handshake that fails (an https call to a plain HTTP port): the request is written only after it', async () => {
    const server = createHttpServer((_req, res) => res.end('plain'));
    const port = await listen(server);
    try {
      const e = await rejection(call(`https://127.0.0.1:${port}/`));
      expect([e.kind, e.notSent]).toEqual(['unavailable', true]);
      expect(e.message).toContain('wrong version number');
    } finally {
      server.close();
    }
  });

  it('not a connection dropped after the request was read: that call may have acted', async () => {
    let received = '';
    const server = createNetServer((sock) => {
      sock.on('data', (chunk) => {
        received += chunk.toString('utf8');
        if (received.includes('{"a":1}')) sock.destroy();
      });
    });
    const port = await listen(server);
    try {
      const e = await rejection(call(`http://127.0.0.1:${port}/`));
      expect(received).toContain('POST / HTTP/1.1');
      expect(e.notSent).toBe(false);
    } finally {
      server.close();
    }
  });

  it('not a timeout: the request left', async () => {
    const server = createHttpServer(() => undefined);
    const port = await listen(server);
    try {
      const e = await rejection(withDeadline('tool t', 200, undefined, (signal) => fetch(`http://127.0.0.1:${port}/`, { signal })));
      expect([e.kind, e.notSent]).toEqual(['timeout', false]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('an HTTP tool whose record could not be read (the store away): the request never left', async () => {
    const { store, register } = memoryToolStore();
    let reached = 0;
    const server = createHttpServer((_req, res) => {
      reached += 1;
      res.end('{}');
    });
    const port = await listen(server);
    try {
      await register({ name: 'hook_sink', kind: 'http', endpoint: `http://127.0.0.1:${port}/`, method: 'POST', protocol: 'openai', timeout_ms: 5_000 });
      const down = Object.assign(Object.create(store) as typeof store, {
        getTool: async () => {
          throw unavailable('redis getTool failed: connection lost');
        },
      });
      const e = await rejection(new RemoteRepo({ toolStore: down, logger: silentLogger() }).exec('hook_sink', { a: 1 }, testContext()));
      expect([e.kind, e.notSent, reached]).toEqual(['unavailable', true, 0]);
      expect(e.message).toContain('redis getTool failed');
      // With the store back the same call leaves (and is not marked).
      await new RemoteRepo({ toolStore: store, logger: silentLogger() }).exec('hook_sink', { a: 1 }, testContext());
      expect(reached).toBe(1);
    } finally {
      server.close();
    }
  });

  it('a stdio MCP server that could not start', async () => {
    const { store, register } = memoryToolStore();
    const missing = '/nonexistent/mcp-server-binary';
    const provider = new McpProvider({ logger: silentLogger(), stdioAllow: [missing] });
    const repo = new ProviderRepo({ toolStore: store, logger: silentLogger(), providers: [provider] });
    await register({ name: 'fx', kind: 'mcp', transport: 'stdio', command: missing, args: [] });
    try {
      const e = await rejection(repo.exec('fx__add', { a: 1 }, testContext()));
      expect(e.notSent).toBe(true);
      expect(e.kind).toBe('unavailable');
    } finally {
      await repo.close();
    }
  });
});
