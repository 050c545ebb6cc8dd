import type { ApiClient } from './client';

/** What a command needs from the global options. */
export interface CliContext {
  client(): ApiClient;
  json(): boolean;
}
