import { NatsError } from 'nats';
import { HookyardError, notFound } from '@hookyard/core';
import { toBusError } from '../src';

describe('toBusError', () => {
  const natsError = (code: string) => new NatsError(`nats said ${code}`, code);

  it.each([
    ['CONNECTION_CLOSED', 'unavailable'],
    ['CONNECTION_REFUSED', 'unavailable'],
    ['CONNECTION_DRAINING', 'unavailable'],
    ['DISCONNECT', 'unavailable'],
    ['503', 'unavailable'],
    ['TIMEOUT', 'timeout'],
    ['CONNECTION_TIMEOUT', 'timeout'],
    ['BAD_SUBJECT', 'internal'],
    ['PERMISSIONS_VIOLATION', 'internal'],
  ])('maps NATS code %s to %s, naming what was attempted and the code', (code, kind) => {
    const err = toBusError(natsError(code), 'publish run ids');
    expect(err).toBeInstanceOf(HookyardError);
    expect(err.kind).toBe(kind);
    expect(err.message).toContain('publish run ids');
    expect(err.message).toContain(JSON.stringify(code));
  });

  it('maps a socket refusal to unavailable and anything unknown to internal', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    expect(toBusError(refused, 'connect').kind).toBe('unavailable');
    expect(toBusError('weird', 'connect').kind).toBe('internal');
  });

  it('keeps a HookyardError as it is', () => {
    const mine = notFound('no such stream');
    expect(toBusError(mine, 'x')).toBe(mine);
  });
});
