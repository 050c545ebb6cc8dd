import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RedisClient } from './client';
import { sendWrite, storeError } from './replies';

/** One Lua script per atomic state change; fragments are included, never copied. */
export const SCRIPT_NAMES = [
  'keep_event',
  'claim',
  'claim_planned',
  'renew',
  'set_claim_intent',
  'act',
  'note',
  'complete',
  'fail',
  'schedule_retry',
  'release',
  'outcome_lost',
  'withdraw_start',
  'retry',
  'discard',
  'resolve_unknown',
  'replay',
  'sweep_due',
  'sweep_lapsed',
  'sweep_expired',
  'put_hook',
  'remove_hook',
  'put_state_declaration',
  'remove_state_declaration',
  'put_approval_policy',
  'copy_policy_version',
  'park',
  'resolve_interaction',
  'take_interaction',
  'expire_interactions',
  'put_state',
  'delete_state',
  'take_token',
  'keep_unrouted',
  'drop_unrouted',
  'keep_hook_run',
  'keep_agent_call',
  'create_agent',
  'rotate_agent',
  'update_agent',
  'remove_agent',
  'put_trigger_link',
  'use_trigger_link',
  'return_trigger_use',
  'revoke_trigger_link',
  'record_audit',
  'read_stats',
  'read_hook_totals',
] as const;
export type ScriptName = (typeof SCRIPT_NAMES)[number];

const INCLUDE = /^--!include ([a-z_]+)\s*$/;

/**
 * The .lua files sit beside this file: in src (tests run from source) and in
 * dist, where `pnpm build` copies them (scripts/copy-lua.js). Never read from
 * src at run time: the image ships dist only.
 */
function luaDir(): string {
  const dir = join(__dirname, 'lua');
  if (!existsSync(join(dir, 'claim.lua'))) {
    throw new Error(`Lua scripts not found in ${dir}: build the store with \`pnpm build\` (it copies src/redis/lua to dist/redis/lua)`);
  }
  return dir;
}

/**
 * Reads script `name` with its `--!include fragment` lines replaced by the
 * fragment (recursively, each fragment once per script).
 */
export function loadScript(name: string, dir = luaDir(), seen = new Set<string>()): string {
  seen.add(name);
  return readFileSync(join(dir, `${name}.lua`), 'utf8')
    .split('\n')
    .map((line) => {
      const m = INCLUDE.exec(line);
      if (!m) return line;
      const fragment = m[1] ?? '';
      return seen.has(fragment) ? `-- (${fragment} already included)` : loadScript(fragment, dir, seen);
    })
    .join('\n');
}

type Reply = unknown[];
type ScriptFn = (numKeys: number, ...keysAndArgs: Array<string | number>) => Promise<Reply>;

/** Scripts that only read: their failure is a plain `unavailable`, and they may wait in the offline queue. */
const READS: ReadonlySet<ScriptName> = new Set(['read_stats', 'read_hook_totals']);

/** Runs the store's scripts by name (EVALSHA, falling back to EVAL once per connection). */
export class Scripts {
  constructor(private readonly client: RedisClient) {
    const dir = luaDir();
    for (const name of SCRIPT_NAMES) client.defineCommand(`hy_${name}`, { lua: loadScript(name, dir) });
  }

  /**
   * Runs script `name`; its failure is already a HookyardError. A write is
   * issued only on a connection ready now: on any other, ioredis would hold it
   * in its offline queue and write it when the connection comes back, maybe
   * after its caller was answered (it re-sends queued and unanswered commands
   * on reconnect, even ones that timed out). So "not sent" is decided here,
   * before sending, and every later failure is `outcomeUnknown` (sendWrite).
   */
  async run(name: ScriptName, keys: string[], args: Array<string | number>): Promise<Reply> {
    const fn = (this.client as unknown as Record<string, ScriptFn>)[`hy_${name}`];
    if (!fn) throw new Error(`script ${name} is not defined`);
    const send = () => fn.call(this.client, keys.length, ...keys, ...args);
    if (!READS.has(name)) return sendWrite(this.client, name, send);
    try {
      return await send();
    } catch (err) {
      throw storeError(name, err);
    }
  }
}
