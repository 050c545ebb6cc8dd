import { createLogger } from '@hookyard/core';
import { createJetStreamBus, createNatsIngest, createRunEventPublisher, redactNatsUrl } from '../src';

describe('NATS URLs in messages and logs', () => {
  it('redacts the user info of every server in the list', () => {
    expect(redactNatsUrl('nats://alice:s3cretpw@127.0.0.1:4222')).toBe('nats://***@127.0.0.1:4222');
    expect(redactNatsUrl('nats://t0ken@a:4222, tls://bob:pw@b:4223,c:4224')).toBe('nats://***@a:4222, tls://***@b:4223,c:4224');
    expect(redactNatsUrl('alice:s3cretpw@127.0.0.1:4222')).toBe('***@127.0.0.1:4222');
    expect(redactNatsUrl('nats://al@ice:p@ss@host:1')).toBe('nats://***@host:1');
    expect(redactNatsUrl('nats://127.0.0.1:4222')).toBe('nats://127.0.0.1:4222');
  });

  it('never quotes the credentials when a connection fails, in the error or in a log line', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', destination: { write: (s: string) => void lines.push(s) } });
    const url = 'nats://alice:s3cretpw@127.0.0.1:1,nats://tok3n@127.0.0.1:2';
    const attempts = [
      createJetStreamBus({ url, prefix: 'redact', logger }),
      createNatsIngest({ url, prefix: 'redact', logger }),
      createRunEventPublisher({ url, prefix: 'redact', logger }),
    ];
    for (const attempt of attempts) {
      const err = (await attempt.then(
        () => new Error('connected to a port nothing listens on'),
        (e: unknown) => e,
      )) as Error;
      expect(err.message).toContain('connect to NATS at "nats://***@127.0.0.1:1,nats://***@127.0.0.1:2"');
      for (const secret of ['s3cretpw', 'alice', 'tok3n']) {
        expect(err.message).not.toContain(secret);
        expect(JSON.stringify(err, Object.getOwnPropertyNames(err))).not.toContain(secret);
      }
    }
    for (const line of lines) for (const secret of ['s3cretpw', 'alice', 'tok3n']) expect(line).not.toContain(secret);
  });
});
