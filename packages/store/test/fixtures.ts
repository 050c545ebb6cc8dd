import { HookyardError } from '@hookyard/core';
import type { Hook } from '@hookyard/core';
import type { Stores } from '../src';

/** Builds a fresh, empty Stores for one test; the suite closes it afterwards. */
export type StoresFactory = () => Promise<Stores>;

export const T0 = Date.parse('2026-01-01T00:00:00Z');

export function hook(name: string, topic: string, extra: Partial<Hook> = {}): Hook {
  return {
    name,
    topic,
    tool: 'echo',
    tool_kwargs: { say: name },
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    ...extra,
  };
}

/** Resolves to the HookyardError a promise rejects with (fails the test when it resolves). */
export async function rejection(p: Promise<unknown>): Promise<HookyardError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof HookyardError) return err;
    throw new Error(`expected a HookyardError, got ${String(err)}`, { cause: err });
  }
  throw new Error('expected a rejection, but it resolved');
}

/** Sets up the per-test Stores for a describe block. */
export function useStores(factory: StoresFactory): () => Stores {
  let stores: Stores | null = null;
  beforeEach(async () => {
    stores = await factory();
  });
  afterEach(async () => {
    await stores?.close();
    stores = null;
  });
  return () => {
    if (!stores) throw new Error('stores used outside a test');
    return stores;
  };
}
