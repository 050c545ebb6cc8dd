/** A tiny management-API client for end-to-end tests. */
export interface RunView {
  id: string;
  hook: string;
  status: string;
  attempts: number;
  acted: string;
  error: { kind: string; message: string } | null;
  history: { event: string; attempt: number; detail?: string }[];
  result: unknown;
}

export class Api {
  constructor(
    readonly base: string,
    private readonly token: string,
  ) {}

  async call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
  }

  async ok<T>(method: string, path: string, body?: unknown): Promise<T> {
    const r = await this.call<T>(method, path, body);
    if (r.status >= 300) throw new Error(`${method} ${path} -> ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }

  /** Every run of a hook, following the cursor. */
  async allRuns(hook: string): Promise<RunView[]> {
    const out: RunView[] = [];
    let cursor: string | null = null;
    do {
      const q = new URLSearchParams({ hook, limit: '500' });
      if (cursor) q.set('cursor', cursor);
      const page: { runs: RunView[]; next_cursor: string | null } = await this.ok('GET', `/api/hook-runs?${q.toString()}`);
      out.push(...page.runs);
      cursor = page.next_cursor;
    } while (cursor);
    return out;
  }

  async sendEvent(topic: string, payload: unknown): Promise<{ status: number; body: { status: string; runs: number } }> {
    const res = await fetch(`${this.base}/universal_webhook/${topic}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payload),
    });
    return { status: res.status, body: (await res.json()) as { status: string; runs: number } };
  }
}

/** Runs `task(i)` for i in [0, n) with at most `width` in flight. */
export async function pool(n: number, width: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(width, n) }, async () => {
    while (next < n) {
      const i = next++;
      await task(i);
    }
  });
  await Promise.all(workers);
}

export async function metricValue(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}
