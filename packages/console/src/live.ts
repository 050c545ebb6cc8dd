import type { RunEventData } from '@hookyard/api';
import { useEffect, useRef, useState } from 'preact/hooks';
import { session } from './api';

/** The summary `GET /api/events` sends for each run event (the same as `hooks.events.run.*`): the API's declared RunEvent. */
export type RunSummary = RunEventData;

export type LiveState = 'connecting' | 'open' | 'unavailable';

type Listener = (e: RunSummary) => void;

/**
 * One stream per tab, shared by every view that listens. EventSource cannot
 * send the bearer header, so this reads the stream through fetch and parses
 * the `text/event-stream` frames itself; it reconnects with a growing pause.
 */
class RunStream {
  private listeners = new Set<Listener>();
  private states = new Set<(s: LiveState) => void>();
  private controller: AbortController | null = null;
  private retryMs = 1000;
  private timer: ReturnType<typeof setTimeout> | undefined;
  state: LiveState = 'connecting';

  listen(l: Listener, s: (s: LiveState) => void): () => void {
    this.listeners.add(l);
    this.states.add(s);
    s(this.state);
    if (!this.controller && this.timer === undefined) void this.connect();
    return () => {
      this.listeners.delete(l);
      this.states.delete(s);
      if (this.listeners.size === 0) this.stop();
    };
  }

  private set(state: LiveState): void {
    this.state = state;
    for (const s of this.states) s(state);
  }

  private stop(): void {
    this.controller?.abort();
    this.controller = null;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async connect(): Promise<void> {
    this.timer = undefined;
    const controller = (this.controller = new AbortController());
    const token = session.token();
    try {
      const res = await fetch('/api/events', {
        headers: { Accept: 'text/event-stream', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
        signal: controller.signal,
        cache: 'no-store',
        credentials: 'omit',
      });
      if (!res.ok || !res.body) throw new Error(`events answered ${res.status}`);
      this.set('open');
      this.retryMs = 1000;
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          this.frame(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      }
    } catch {
      if (controller.signal.aborted) return;
    }
    if (this.controller !== controller) return;
    this.controller = null;
    this.set('unavailable');
    this.timer = setTimeout(() => void this.connect(), this.retryMs);
    this.retryMs = Math.min(this.retryMs * 2, 30_000);
  }

  private frame(text: string): void {
    let event = 'message';
    const data: string[] = [];
    for (const line of text.split('\n')) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (event !== 'run' || data.length === 0) return;
    try {
      const summary = JSON.parse(data.join('\n')) as RunSummary;
      for (const l of this.listeners) l(summary);
    } catch {
      // A frame that is not a summary is ignored.
    }
  }
}

const stream = new RunStream();

/** Calls `onEvent` for every run event while `enabled`; answers the stream's state. */
export function useRunEvents(enabled: boolean, onEvent: Listener): LiveState {
  const [state, setState] = useState<LiveState>(stream.state);
  const handler = useRef(onEvent);
  handler.current = onEvent;
  useEffect(() => {
    if (!enabled) return;
    return stream.listen((e) => handler.current(e), setState);
  }, [enabled]);
  return state;
}
