import { useEffect, useState } from 'preact/hooks';

/** Hash routes (`#/runs?status=failed`): the server serves one page, and a reload keeps the place. */
export interface Route {
  path: string;
  params: URLSearchParams;
}

export function currentRoute(): Route {
  const raw = location.hash.replace(/^#/, '') || '/';
  const q = raw.indexOf('?');
  return q < 0 ? { path: raw, params: new URLSearchParams() } : { path: raw.slice(0, q), params: new URLSearchParams(raw.slice(q + 1)) };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const on = () => setRoute(currentRoute());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

/** A hash link for a path and its set parameters. */
export function href(path: string, params: Record<string, string | undefined | null> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) q.set(k, v);
  const s = q.toString();
  return `#${path}${s ? `?${s}` : ''}`;
}

export function go(path: string, params: Record<string, string | undefined | null> = {}): void {
  location.hash = href(path, params).slice(1);
}
