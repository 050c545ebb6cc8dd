import { randomBytes } from 'node:crypto';
import type { Router } from 'express';
import { createTriggerLink, listTriggerLinks, revokeTriggerLink, type RequestOf } from '@hookyard/api';
import { PLATFORM_EVENT_TOPICS, TRIGGER_LINK_PATH, badInput, notFound, type TriggerLink } from '@hookyard/core';
import { triggerTokenHash } from '../door/trigger-handler';
import { callerOf } from './auth';
import { mount } from './declare';
import type { ApiContext } from './context';

/** Longest life a link may be given: ten years. */
const MAX_LIFE_SECONDS = 10 * 365 * 24 * 3600;
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

interface LinkInput {
  label: string;
  expiresAt: number | null;
  maxUses: number | null;
}

/**
 * A create body as its declaration checked it (fields, bounds, printable label,
 * not both expiries); what a schema cannot say is checked here: expires_at is
 * in the future and within ten years of now.
 */
function linkInputOf(b: RequestOf<typeof createTriggerLink>['body'] | undefined, now: number): LinkInput {
  let expiresAt: number | null = null;
  if (b?.expires_in_seconds !== undefined) expiresAt = now + b.expires_in_seconds * 1000;
  else if (b?.expires_at !== undefined) {
    const ms = Date.parse(b.expires_at);
    if (!Number.isFinite(ms))
      throw badInput('trigger link refused', [`expires_at must be an ISO 8601 time (e.g. 2026-12-31T23:59:59Z), got ${JSON.stringify(b.expires_at)}`]);
    if (ms <= now)
      throw badInput('trigger link refused', [`expires_at must be in the future, got ${JSON.stringify(b.expires_at)} (now is ${new Date(now).toISOString()})`]);
    if (ms > now + MAX_LIFE_SECONDS * 1000)
      throw badInput('trigger link refused', [`expires_at must be within ten years, got ${JSON.stringify(b.expires_at)}`]);
    expiresAt = ms;
  }
  return { label: b?.label ?? '', expiresAt, maxUses: b?.max_uses ?? null };
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
      const input = linkInputOf(req.checked.body, now);
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
