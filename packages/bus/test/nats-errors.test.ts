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

  it("names the inbox prefix and what to allow when the server refuses the role's inbox subscription", () => {
    const refused = new NatsError('\'Permissions Violation for Subscription to "_INBOX_executor.IS202OU3.*"\'', 'PERMISSIONS_VIOLATION');
    expect(toBusError(refused, 'set up run stream "HOOKS_RUNS"').message).toBe(
      'set up run stream "HOOKS_RUNS": \'Permissions Violation for Subscription to "_INBOX_executor.IS202OU3.*"\' (code "PERMISSIONS_VIOLATION");' +
        ' this role\'s replies arrive under the inbox prefix "_INBOX_executor" (HOOKS_NATS_INBOX_PREFIX, default _INBOX_<role>):' +
        ' allow its NATS user to subscribe to "_INBOX_executor.>", or set HOOKS_NATS_INBOX_PREFIX to a prefix it may subscribe to',
    );
  });

  it('keeps a HookyardError as it is', () => {
    const mine = notFound('no such stream');
    expect(toBusError(mine, 'x')).toBe(mine);
  });
});
