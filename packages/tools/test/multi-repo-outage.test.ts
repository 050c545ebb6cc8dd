import { HookyardError, unavailable } from '@hookyard/core';
import { MultiRepo } from '../src/multi-repo';
import type { ToolRepo } from '../src/types';

/** A repo that lists `names`, or fails listing as a store outage does. */
function repo(names: string[] | 'down', calls: string[] = []): ToolRepo {
  return {
    async names() {
      if (names === 'down') throw unavailable('redis getTool failed: connection is closed');
      return names;
    },
    async exec(name) {
      calls.push(name);
      return { ran: name };
    },
    async schema() {
      return undefined;
    },
    async tools() {
      return [];
    },
  };
}

const ctx = {} as never;

describe('MultiRepo while a repo cannot list (its store is down)', () => {
  it('answers that repo\'s failure, marked not sent, instead of "not a registered tool"', async () => {
    const multi = new MultiRepo([repo(['echo']), repo('down')]);
    const err = (await multi.exec('sink_once', {}, ctx).catch((e: unknown) => e)) as HookyardError;
    expect(err).toBeInstanceOf(HookyardError);
    expect(err.kind).toBe('unavailable');
    expect(err.notSent).toBe(true);
  });

  it('still routes a name another repo lists, and still says not_found when every repo listed', async () => {
    const calls: string[] = [];
    expect(await new MultiRepo([repo('down'), repo(['echo'], calls)]).exec('echo', {}, ctx)).toEqual({ ran: 'echo' });
    expect(calls).toEqual(['echo']);
    const err = (await new MultiRepo([repo(['echo'])]).exec('ghost', {}, ctx).catch((e: unknown) => e)) as HookyardError;
    expect(err.kind).toBe('not_found');
  });
});
