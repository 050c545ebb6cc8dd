import { randomBytes } from 'node:crypto';
import type { Router } from 'express';
import { TRIGGER_LABEL_MAX, createTriggerLink, listTriggerLinks, revokeTriggerLink } from '@hookyard/api';
import { PLATFORM_EVENT_TOPICS, TRIGGER_LINK_PATH, badInput, notFound, type TriggerLink } from '@hookyard/core';
import { triggerTokenHash } from '../door/trigger-handler';
import { callerOf } from './auth';
import { mount } from './declare';
import type { ApiContext } from './context';

/** Longest life a link may be given: ten years. */
const MAX_LIFE_SECONDS = 10 * 365 * 24 * 3600;
const FIELDS = new Set(['label', 'expires_in_seconds', 'expires_at', 'max_uses']);
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** A new link id: `tl_` and 20 random base32 characters. */
function newLinkId(): string {
  const bytes = randomBytes(20);
  let id = 'tl_';
  for (const b of bytes) id += BASE32[b & 31];
  return id;
}

/** A new token: 32 random bytes (256 bits), base64url. Shown once; only its SHA-256 is kept. */
function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** A control character (C0 or DEL): a label is one printable line. */
const isControl = (c: string) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f;

interface LinkInput {
  label: string;
  expiresAt: number | null;
  maxUses: number | null;
}

/** Reads a create body; every bad or unknown field is one line of a 400. */
function readLinkInput(body: unknown, now: number): LinkInput {
  const b = (body ?? {}) as Record<string, unknown>;
  if (typeof b !== 'object' || Array.isArray(b)) throw badInput('trigger link refused', ['the body must be a JSON object (or empty)']);
  const errors: string[] = [];
  for (const k of Object.keys(b)) if (!FIELDS.has(k)) errors.push(`unknown field '${k}' (known: ${[...FIELDS].join(', ')})`);
  let label = '';
  if (b.label !== undefined) {
    if (typeof b.label !== 'string' || b.label.length > TRIGGER_LABEL_MAX || [...b.label].some(isControl)) {
      errors.push(`label must be a string of at most ${TRIGGER_LABEL_MAX} printable characters, got ${JSON.stringify(b.label)?.slice(0, 60)}`);
    } else label = b.label;
  }
  let expiresAt: number | null = null;
  if (b.expires_in_seconds !== undefined && b.expires_at !== undefined) errors.push('give expires_in_seconds or expires_at, not both');
  else if (b.expires_in_seconds !== undefined) {
    const s = b.expires_in_seconds;
    if (typeof s !== 'number' || !Number.isInteger(s) || s < 1 || s > MAX_LIFE_SECONDS) {
      errors.push(`expires_in_seconds must be a whole number from 1 to ${MAX_LIFE_SECONDS}, got ${JSON.stringify(s)}`);
    } else expiresAt = now + s * 1000;
  } else if (b.expires_at !== undefined) {
    const ms = typeof b.expires_at === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(b.expires_at) ? Date.parse(b.expires_at) : NaN;
    if (!Number.isFinite(ms)) errors.push(`expires_at must be an ISO 8601 time (e.g. 2026-12-31T23:59:59Z), got ${JSON.stringify(b.expires_at)}`);
    else if (ms <= now) errors.push(`expires_at must be in the future, got ${JSON.stringify(b.expires_at)} (now is ${new Date(now).toISOString()})`);
    else if (ms > now + MAX_LIFE_SECONDS * 1000) errors.push(`expires_at must be within ten years, got ${JSON.stringify(b.expires_at)}`);
    else expiresAt = ms;
  }
  let maxUses: number | null = null;
  if (b.max_uses !== undefined) {
    const m = b.max_uses;
    if (typeof m !== 'number' || !Number.isInteger(m) || m < 1 || m > 1_000_000_000)
      errors.push(`max_uses must be a whole number from 1 to 1000000000, got ${JSON.stringify(m)}`);
    else maxUses = m;
  }
  if (errors.length) throw badInput('trigger link refused', errors);
  return { label, expiresAt, maxUses };
}

/**
 * A hook's trigger links: `POST /api/hooks/{name}/links` (operator) makes one
 * and answers its token once (with the full URL when HOOKS_PUBLIC_URL is set);
 * `GET` (reader) lists them without tokens; `DELETE .../{id}` (operator)
 * revokes one at once.
 */
export function triggerLinkRoutes(router: Router, ctx: ApiContext): void {
  const opts = { validateAnswers: ctx.validateAnswers };
  // The declarations 404 a name that is no name; this, a name no hook has.
  const hookOf = async (name: string) => {
    const hook = await ctx.stores.hooks.getHook(name);
    if (!hook) throw notFound(`no hook named ${JSON.stringify(name)}`);
    return hook;
  };

  mount(
    router,
    createTriggerLink,
    async (req, res) => {
      const now = ctx.clock.now();
      const hook = await hookOf(req.checked.params.name);
      const input = readLinkInput(req.body, now);
      if (PLATFORM_EVENT_TOPICS.has(hook.topic)) {
        throw badInput('trigger link refused', [`hook ${hook.name} is on platform topic ${hook.topic}, which only the platform fires; a link cannot fire it`]);
      }
      const token = newToken();
      const link: TriggerLink = {
        id: newLinkId(),
        hook: hook.name,
        label: input.label,
        created_at: new Date(now).toISOString(),
        created_by: callerOf(res),
        expires_at: input.expiresAt === null ? null : new Date(input.expiresAt).toISOString(),
        uses: 0,
        last_used_at: null,
        max_uses: input.maxUses,
        revoked: false,
      };
      await ctx.stores.hooks.putTriggerLink(link, triggerTokenHash(token));
      ctx.logger.info({ hook: hook.name, link: link.id, expires_at: link.expires_at, max_uses: link.max_uses }, 'trigger link created');
      const path = `${TRIGGER_LINK_PATH}${token}`;
      res.status(201).json({ link, token, path, url: ctx.settings.publicUrl ? `${ctx.settings.publicUrl}${path}` : null });
    },
    opts,
  );

  mount(
    router,
    listTriggerLinks,
    async (req, res) => {
      const hook = await hookOf(req.checked.params.name);
      res.json({ links: await ctx.stores.hooks.listTriggerLinks(hook.name) });
    },
    opts,
  );

  mount(
    router,
    revokeTriggerLink,
    async (req, res) => {
      const hook = await hookOf(req.checked.params.name);
      const id = req.checked.params.id;
      const link = id.length <= 64 ? await ctx.stores.hooks.revokeTriggerLink(hook.name, id) : null;
      if (!link) throw notFound(`hook ${hook.name} has no trigger link ${JSON.stringify(id.slice(0, 64))}`);
      ctx.logger.info({ hook: hook.name, link: link.id }, 'trigger link revoked');
      res.json({ revoked: true, link });
    },
    opts,
  );
}
