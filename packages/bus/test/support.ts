/** Small helpers shared by the bus tests. */

/** Polls `check` until it holds; fails after `boundMs` saying what was awaited (a bound, not a timing assertion). */
export async function waitFor(what: string, check: () => boolean, boundMs = 15_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${boundMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A promise the test opens by hand. */
export function gate(): { wait: Promise<void>; open(): void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function ids(label: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${label}-${i}`);
}
