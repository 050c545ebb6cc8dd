import type { Request } from 'express';
import { API_ROUTES } from '@hookyard/api';
import { badInput, isValidName, type HookyardError, type Run, type SubjectKey } from '@hookyard/core';
import type { Stores } from '@hookyard/store';
import { redactToolRecord } from '@hookyard/tools';
import { redactBinding } from '../verify';

/** What a recorded request is, as far as the table knows before the route runs. */
export interface AuditAction {
  /** Dotted name: `hook.register`, `run.retry`… */
  action: string;
  /** The thing acted on, from the request (path parameters, body). */
  target(req: Request, params: Record<string, string>): string | null;
  /** The record before the change, read just before the route runs (null: none). */
  before?(stores: Stores, req: Request, params: Record<string, string>): Promise<unknown>;
  /** The record after, from the route's JSON answer (never the whole answer where it holds a token). */
  after?(body: unknown, req: Request): unknown;
  /** Before and after both from the route's answer (a change that reports what it replaced). */
  fromAnswer?(body: unknown, req: Request): { before: unknown; after: unknown };
  /** Anything else worth keeping (a reason, a bulk selection and its counts). */
  detail?(body: unknown, req: Request): unknown;
}

interface Entry extends AuditAction {
  method: string;
  /** The route as registered under /api (express syntax: `:param`, `*rest`). */
  route: string;
}

const field = (v: unknown, key: string): unknown => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined);
const bodyName = (req: Request) => {
  const n = field(req.body, 'name');
  return typeof n === 'string' ? n.slice(0, 128) : null;
};
const gone = () => null;
const runSummary = (r: Run | null | undefined) => (r ? { id: r.id, hook: r.hook, status: r.status, attempts: r.attempts } : null);
const runOf = (body: unknown) => {
  const id = field(body, 'id');
  return typeof id === 'string' ? { id, hook: field(body, 'hook'), status: field(body, 'status'), attempts: field(body, 'attempts') } : null;
};
const subjectOf = (p: Record<string, string>): SubjectKey => ({ scope: p.scope ?? '', kind: p.kind ?? '', key: p.key ?? '' });
const interactionAfter = (body: unknown) => {
  const i = field(body, 'interaction');
  if (!i) return null;
  return {
    id: field(i, 'id'),
    status: field(i, 'status'),
    resolution: field(i, 'resolution'),
    run: field(i, 'run'),
    hook: field(i, 'hook'),
    tool: field(i, 'tool'),
    rule: field(i, 'rule'),
    run_status: field(field(body, 'run'), 'status') ?? null,
  };
};
const reasonOf = (req: Request) => {
  const r = field(req.body, 'reason');
  return typeof r === 'string' && r ? { reason: r } : undefined;
};
const changes = (body: unknown, key: string): Array<{ variable: string; from: unknown; to: unknown }> => {
  const list = field(body, key);
  return Array.isArray(list) ? (list as Array<{ variable: string; from: unknown; to: unknown }>).filter((c) => typeof c?.variable === 'string') : [];
};
const settingValues = (body: unknown, side: 'from' | 'to') =>
  Object.fromEntries([...changes(body, 'applied'), ...changes(body, 'restart_needed')].map((c) => [c.variable, c[side]]));
const bulkDetail = (body: unknown, req: Request) => ({
  filter: field(req.body, 'filter') ?? null,
  matched: field(body, 'matched') ?? null,
  done: field(body, 'retried') ?? field(body, 'discarded') ?? null,
  refused: field(body, 'refused') ?? null,
  truncated: field(body, 'truncated') ?? null,
});

/** Routes that are not management changes although not reads: an agent's call is a run already, never an audit entry. */
const NOT_CHANGES = new Set(['POST /calls']);

/** Routes whose body's `dry_run` the route reads and honours: it answers `dry_run: true`, changes nothing and says so (changedNothing). */
const BODY_DRY_RUN = new Set(['POST /hook-runs/retry', 'POST /hook-runs/discard']);

/** Where a preview is, for the refusal of a `dry_run` a route does not honour. */
const PREVIEWS = 'previews are POST /api/hooks/dry-run, POST /api/approval-policy/dry-run and the body field dry_run of POST /api/hook-runs/retry and /discard';

/**
 * What the trail keeps of a declared route's change, by the action its
 * declaration names (@hookyard/api): the route and the action name live in
 * the declaration, the readers of the stores here.
 */
const BY_ACTION: Record<string, Omit<AuditAction, 'action'>> = {
  'template.put': {
    target: (_r, p) => p.id ?? null,
    before: async (s, _r, p) => (p.id ? s.hooks.getTemplate(p.id) : null),
    after: (b) => field(b, 'template') ?? null,
  },
  'template.remove': {
    target: (_r, p) => p.id ?? null,
    before: async (s, _r, p) => (p.id ? s.hooks.getTemplate(p.id) : null),
    after: gone,
  },
  // Batch D: states, unrouted, agents.
  'state_declaration.put': {
    target: (_r, p) => `${p.scope}/${p.kind}`,
    before: (s, _r, p) => s.declarations.getDeclaration(p.scope ?? '', p.kind ?? '').catch(() => null),
    after: (b) => field(b, 'declaration') ?? null,
    // The hooks whose attached templates the change replaced (each a new revision).
    detail: (b) => ({ reattached: field(b, 'reattached') ?? [] }),
  },
  'state_declaration.remove': {
    target: (_r, p) => `${p.scope}/${p.kind}`,
    before: (s, _r, p) => s.declarations.getDeclaration(p.scope ?? '', p.kind ?? '').catch(() => null),
    after: gone,
  },
  'state.put': {
    target: (_r, p) => `${p.scope}/${p.kind}/${p.key}`,
    before: async (s, _r, p) => {
      const kept = await s.states.get(subjectOf(p)).catch(() => null);
      return kept ? { version: kept.version, document: kept.document } : null;
    },
    after: (b) => ({ version: field(b, 'version'), document: field(b, 'document') }),
  },
  'state.remove': {
    target: (_r, p) => `${p.scope}/${p.kind}/${p.key}`,
    before: async (s, _r, p) => {
      const kept = await s.states.get(subjectOf(p)).catch(() => null);
      return kept ? { version: kept.version, document: kept.document } : null;
    },
    after: gone,
  },
  'unrouted.replay': {
    target: (_r, p) => p.topic ?? null,
    detail: (b) => ({ replayed: field(b, 'replayed') ?? null, runs: field(b, 'runs') ?? null, hooks: field(b, 'hooks') ?? null }),
  },
  'unrouted.drop': { target: (_r, p) => p.topic ?? null, detail: (b) => b },
  // The answers of create and rotate hold the agent's token: only the agent record is kept.
  'agent.create': { target: bodyName, after: (b) => field(b, 'agent') ?? null },
  'agent.remove': {
    target: (_r, p) => p.name ?? null,
    before: async (s, _r, p) => (p.name ? s.agents.get(p.name).catch(() => null) : null),
    after: gone,
  },
  'agent.update': {
    target: (_r, p) => p.name ?? null,
    before: async (s, _r, p) => (p.name ? s.agents.get(p.name).catch(() => null) : null),
    after: (b) => (field(b, 'name') ? b : null),
  },
  'agent.rotate': {
    target: (_r, p) => p.name ?? null,
    before: async (s, _r, p) => (p.name ? s.agents.get(p.name).catch(() => null) : null),
    after: (b) => field(b, 'agent') ?? null,
  },
  // --- end batch D ---
  // --- batch A: hooks & topic config ---
  'hook.register': {
    target: bodyName,
    before: async (s, req) => {
      const n = bodyName(req);
      return n && isValidName(n) ? s.hooks.getHook(n) : null;
    },
    after: (b) => field(b, 'hook') ?? null,
  },
  'hook.remove': {
    target: (_r, p) => p.name ?? null,
    before: async (s, _r, p) => (isValidName(p.name) ? s.hooks.getHook(p.name) : null),
    after: gone,
  },
  'verifier.bind': {
    target: (_r, p) => p.topic ?? null,
    before: async (s, _r, p) => {
      const v = isValidName(p.topic) ? await s.hooks.getVerifier(p.topic) : null;
      return v ? redactBinding(v) : null;
    },
    after: (b) => field(b, 'verifier') ?? null,
  },
  'verifier.unbind': {
    target: (_r, p) => p.topic ?? null,
    before: async (s, _r, p) => {
      const v = isValidName(p.topic) ? await s.hooks.getVerifier(p.topic) : null;
      return v ? redactBinding(v) : null;
    },
    after: gone,
  },
  'dedupe.bind': {
    target: (_r, p) => p.topic ?? null,
    before: async (s, _r, p) => (isValidName(p.topic) ? s.hooks.getDedupe(p.topic) : null),
    after: (b) => field(b, 'dedupe') ?? null,
  },
  'dedupe.unbind': {
    target: (_r, p) => p.topic ?? null,
    before: async (s, _r, p) => (isValidName(p.topic) ? s.hooks.getDedupe(p.topic) : null),
    after: gone,
  },
  // The answer holds the link's token once: only the link record (no token) is kept.
  'trigger_link.create': { target: (_r, p) => p.name ?? null, after: (b) => field(b, 'link') ?? null },
  'trigger_link.revoke': { target: (_r, p) => `${p.name ?? ''}/${p.id ?? ''}`, after: (b) => field(b, 'link') ?? null },
  // --- end batch A ---
  'interaction.approve': {
    target: (_r, p) => p.id ?? null,
    after: interactionAfter,
    detail: (_b, req) => reasonOf(req),
  },
  'interaction.deny': {
    target: (_r, p) => p.id ?? null,
    after: interactionAfter,
    detail: (_b, req) => reasonOf(req),
  },
  'interaction.cancel': {
    target: (_r, p) => p.id ?? null,
    after: interactionAfter,
    detail: (_b, req) => reasonOf(req),
  },
  'tool.register': {
    target: bodyName,
    before: async (s, req) => {
      const n = bodyName(req);
      const t = n && isValidName(n) ? await s.tools.getTool(n) : null;
      return t ? redactToolRecord(t) : null;
    },
    after: (b) => field(b, 'tool') ?? null,
  },
  'tool.remove': {
    target: (_r, p) => p.name ?? null,
    before: async (s, _r, p) => {
      const t = isValidName(p.name) ? await s.tools.getTool(p.name) : null;
      return t ? redactToolRecord(t) : null;
    },
    after: gone,
  },
  'policy.update': {
    target: () => null,
    before: (s) => s.hooks.getApprovalPolicy(),
    after: (b) => b,
  },
  'settings.reload': {
    target: () => null,
    // Before and after of every variable the reload applied or found changed (the answer's from/to, secrets already hidden).
    fromAnswer: (b) => ({ before: settingValues(b, 'from'), after: settingValues(b, 'to') }),
    detail: (b) => ({
      generation: field(b, 'generation') ?? null,
      applied: changes(b, 'applied').map((c) => c.variable),
      restart_needed: changes(b, 'restart_needed').map((c) => c.variable),
    }),
  },
  // --- batch B: runs ---
  'run.retry': { target: (_r, p) => p.id ?? null, before: async (s, _r, p) => runSummary(await s.runs.get(p.id!).catch(() => null)), after: runOf },
  'run.replay': { target: (_r, p) => p.id ?? null, before: async (s, _r, p) => runSummary(await s.runs.get(p.id!).catch(() => null)), after: runOf },
  'run.discard': { target: (_r, p) => p.id ?? null, before: async (s, _r, p) => runSummary(await s.runs.get(p.id!).catch(() => null)), after: runOf },
  'run.resolve': {
    target: (_r, p) => p.id ?? null,
    before: async (s, _r, p) => runSummary(await s.runs.get(p.id!).catch(() => null)),
    after: runOf,
    // The verdict as given (a succeeded verdict's result is in the run, not repeated here).
    detail: (_b, req) => ({ outcome: field(req.body, 'outcome') ?? null, reason: field(req.body, 'reason') ?? null, note: field(req.body, 'note') ?? null }),
  },
  'runs.bulk_retry': { target: () => null, detail: bulkDetail },
  'runs.bulk_discard': { target: () => null, detail: bulkDetail },
  // --- end batch B ---
};

const DECLARED: Entry[] = API_ROUTES.flatMap((d) => {
  if (!d.audit) return [];
  const extract = BY_ACTION[d.audit];
  // Fails at load (every test that builds the app), not silently with a trail entry that names nothing.
  if (!extract) throw new Error(`${d.method} /api${d.path} declares audit action '${d.audit}', which BY_ACTION in audit/actions.ts does not list`);
  return [{ method: d.method, route: d.path, action: d.audit, ...extract }];
});

const BY_ROUTE = new Map(DECLARED.map((e) => [`${e.method} ${e.route}`, e]));

/** The trail's entry for a route, by method and the route's pattern as registered under /api (`/hooks/:name`), never by a request's path. */
export function auditActionOf(method: string, pattern: string): AuditAction | null {
  return BY_ROUTE.get(`${method} ${pattern}`) ?? null;
}

/** Whether a request to a route (by its pattern) is a read or an agent's call, which the trail never records. */
export function notAChange(method: string, pattern: string): boolean {
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS' || NOT_CHANGES.has(`${method} ${pattern}`);
}

const has = (o: unknown, key: string) => o !== null && typeof o === 'object' && !Array.isArray(o) && Object.prototype.hasOwnProperty.call(o, key);

/**
 * The refusal of a `dry_run` the route does not honour: a write route that
 * has no dry run would make the change and, were it taken for a preview,
 * leave the caller believing nothing happened. So `dry_run` in a write's
 * query string is refused on every route (none reads it there), and in its
 * body on every route but those that honour it (BODY_DRY_RUN). Undefined:
 * nothing to refuse.
 */
export function dryRunRefusal(req: Request, method: string, pattern: string): HookyardError | undefined {
  const route = `${method} /api${pattern}`;
  const honours = BODY_DRY_RUN.has(`${method} ${pattern}`);
  if (has(req.query, 'dry_run')) {
    const where = honours ? `it reads dry_run from its body only ({"filter": {...}, "dry_run": true})` : 'it has no dry run';
    return badInput(`query parameter dry_run refused on ${route}: ${where}, and would make the change`, [
      `remove the query parameter dry_run to make the change; ${PREVIEWS}`,
    ]);
  }
  if (!honours && has(req.body, 'dry_run')) {
    return badInput(`body field dry_run refused on ${route}: it has no dry run, and would make the change`, [
      `remove the field dry_run to make the change; ${PREVIEWS}`,
    ]);
  }
  return undefined;
}

/** Every action the table names (the API documents them). */
export const AUDIT_ACTIONS: readonly string[] = [...new Set(DECLARED.map((e) => e.action))];

/** Every route the table names, as `METHOD /api/<pattern>` (a test holds them to the router's own). */
export const AUDIT_ROUTES: readonly string[] = DECLARED.map((e) => `${e.method} /api${e.route}`);
