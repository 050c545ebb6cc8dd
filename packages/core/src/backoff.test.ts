import { backoffMs } from './backoff';

describe('backoffMs', () => {
  it.each([
    [0, 1000, 60000, 0],
    [1, 1000, 60000, 1000],
    [2, 1000, 60000, 2000],
    [3, 1000, 60000, 4000],
    [6, 1000, 60000, 32000],
    [7, 1000, 60000, 60000],
    [100, 1000, 60000, 60000],
    [2000, 2000, 300000, 300000],
  ])('attempt %i with base %i cap %i waits %i ms', (attempt, base, cap, want) => {
    expect(backoffMs(attempt, base, cap)).toBe(want);
  });
});
