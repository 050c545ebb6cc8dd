import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogDestination } from './log-destination';

describe('createLogDestination', () => {
  it('writes lines in order off the main thread, and drops (and counts) what does not fit the buffer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookyard-log-'));
    const path = join(dir, 'out.log');
    const fd = openSync(path, 'w');
    try {
      const out = createLogDestination({ fd, maxBufferedBytes: 12 });
      out.write('one\n');
      out.write('two\n');
      out.write('three-is-long\n'); // 4 + 4 + 14 > 12: dropped while the first write is in flight
      expect(out.dropped()).toBe(1);
      for (let i = 0; i < 200 && readFileSync(path, 'utf8') !== 'one\ntwo\n'; i++) await new Promise((r) => setTimeout(r, 10));
      expect(readFileSync(path, 'utf8')).toBe('one\ntwo\n');
      out.write('four\n');
      for (let i = 0; i < 200 && !readFileSync(path, 'utf8').endsWith('four\n'); i++) await new Promise((r) => setTimeout(r, 10));
      expect(readFileSync(path, 'utf8')).toBe('one\ntwo\nfour\n');
      expect(out.broken()).toBe(false);
    } finally {
      closeSync(fd);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops writing once the descriptor fails for good, counting every later line', async () => {
    const out = createLogDestination({ fd: 987654 }); // EBADF, as a reader gone for good
    out.write('a\n');
    for (let i = 0; i < 200 && !out.broken(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(out.broken()).toBe(true);
    out.write('b\n');
    out.write('c\n');
    expect(out.dropped()).toBe(3);
  });
});
