import { createMemoryStores } from '@hookyard/store';
import type { ToolStore } from '@hookyard/core';
import { validateToolRecord } from '../../src/remote/validate';

/** A memory tool store and a `register` that goes through the write validation, as the API does. */
export function memoryToolStore(): { store: ToolStore; register(input: Record<string, unknown>): Promise<void> } {
  const store = createMemoryStores().tools;
  return {
    store,
    async register(input) {
      const v = validateToolRecord(input, new Date());
      if (!v.ok) throw new Error(v.errors.join('; '));
      await store.putTool(v.record);
    },
  };
}
