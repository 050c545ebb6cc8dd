import express, { type Request, type Response, type Router } from 'express';
import {
  APPROVAL_LINK_PATH,
  HookyardError,
  INTERACTION_ID_PATTERN,
  approvalLinkValid,
  httpStatusOf,
  toHookyardError,
  type Interaction,
  type LinkVerdict,
  type SecretResolver,
  type Settings,
} from '@hookyard/core';
import { answerApproval, type AnswerDeps } from './answer';
import type { AuditRecorder } from '../audit/recorder';

export interface LinkRouteDeps extends AnswerDeps {
  settings: Pick<Settings, 'approvalLinkSecret'>;
  secrets: SecretResolver;
  /** The client's address as the ingress reads it (HOOKS_TRUSTED_PROXIES); default: the socket's peer. */
  clientAddress?: (req: Request) => string;
  /** Where an answer through a link is recorded (the link as the actor); absent, it is not. */
  audit?: AuditRecorder;
}

/** One fixed answer for a bad or unknown link, whatever was wrong: a prober learns nothing. */
const NOT_VALID = 'This approval link is not valid.';
/** A link signed before links named their issuer (no `by`): refused, since its answer could name nobody; its holder (who has a real signature) is told why. */
const UNSIGNED_ISSUER =
  'This approval link was made before links named whom they were issued to, and is no longer accepted. Ask an operator for a fresh link, or answer the approval in the API.';

/**
 * Who answered through a link, for the answer's `by`: whom the link was issued
 * to (signed into it, so it is the fact), then the client's address and user
 * agent (printable, bounded; the caller chooses them, so they only add).
 */
export function linkUser(issuer: string, address: string, userAgent: string | undefined): string {
  const ua = (userAgent ?? '')
    .replace(/[^\x20-\x7e]/g, '?')
    .trim()
    .slice(0, 120);
  return `signed link issued to ${issuer}, used from ${address || 'an unknown address'} (${ua || 'no user agent'})`;
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(res: Response, status: number, title: string, body: string): void {
  res
    .status(status)
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      // No script, no frames, forms only back to here: the page is a button and text.
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
    })
    .send(
      `<!doctype html><html><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>${esc(title)}</title>` +
        '<style>body{font:16px system-ui,sans-serif;max-width:40em;margin:3em auto;padding:0 1em}code{background:#eee;padding:0 .2em}</style>' +
        `</head><body><h1>${esc(title)}</h1>${body}</body></html>`,
    );
}

function describe(i: Interaction): string {
  return (
    `<p>Run <code>${esc(i.run)}</code> of hook <code>${esc(i.hook)}</code> (topic <code>${esc(i.topic)}</code>) wants to call ` +
    `<code>${esc(i.tool)}</code>${i.rule ? `, asked by rule <code>${esc(i.rule)}</code>` : ''}.</p><p>This approval expires at ${esc(i.expires_at)}.</p>`
  );
}

/**
 * The signed single-use approval links: `GET /approvals/{id}/{approve|deny}?sig=`
 * shows a confirmation page and changes nothing (chat apps fetch links to
 * preview them); only the page's POST answers. The signature (HMAC-SHA256
 * of the id, the verdict, the expiry and the issuer, with HOOKS_APPROVAL_LINK_SECRET) is
 * checked in constant time on both; a bad one gets one fixed answer. A link
 * carries its own expiry (`exp`, signed: HOOKS_APPROVAL_LINK_TTL_SECONDS,
 * never past the approval's): past it the link is refused (403) while the
 * approval may still be answered another way. A link is single-use because
 * its approval is answered once: a second POST is 409 naming who answered
 * first; past the approval's expiry it is 409 too. A link carries whom it was
 * issued to (`by`, signed: `operator:<token id>`, `hook:<name>`); a link
 * without one (signed before issuers were) is refused, 403 saying so. An
 * answer records the issuer, then the client's address and user agent, as `by`.
 */
export function approvalLinkRouter(deps: LinkRouteDeps): Router {
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: '8kb' });

  async function check(
    req: Request,
    verdict: LinkVerdict,
  ): Promise<{ i: Interaction; verdict: LinkVerdict; issuer: string } | { status: number; message: string }> {
    const id = String(req.params.id ?? '');
    const ref = deps.settings.approvalLinkSecret;
    if (!ref) return { status: 404, message: 'Approval links are not enabled on this deployment (HOOKS_APPROVAL_LINK_SECRET).' };
    if (!INTERACTION_ID_PATTERN.test(id)) return { status: 403, message: NOT_VALID };
    const key = await deps.secrets.resolve(ref);
    const i = await deps.stores.interactions.get(id);
    const valid = approvalLinkValid(key, id, verdict, req.query);
    if (!i || i.kind !== 'approval' || !valid) return { status: 403, message: NOT_VALID };
    if (valid === 'unsigned-issuer') return { status: 403, message: UNSIGNED_ISSUER };
    const now = deps.clock.now();
    // The link's own expiry; an approval answered or expired meanwhile is said as such below (409).
    if (i.status === 'open' && valid.expiresAtMs <= now && Date.parse(i.expires_at) > now) {
      const at = new Date(valid.expiresAtMs).toISOString();
      return {
        status: httpStatusOf('forbidden'),
        message: `This approval link expired at ${at} (links work for HOOKS_APPROVAL_LINK_TTL_SECONDS). The approval is still open until ${i.expires_at}: ask an operator for a fresh link, or answer it in the API.`,
      };
    }
    return { i, verdict, issuer: valid.issuer };
  }

  function closed(i: Interaction, now: number): string | null {
    if (i.status !== 'open') {
      const r = i.resolution;
      return `This approval was already answered: ${esc(i.status)}${r ? ` by ${esc(r.by)} via ${esc(r.via)} at ${esc(r.at)}` : ''}.`;
    }
    if (Date.parse(i.expires_at) <= now) return `This approval expired at ${esc(i.expires_at)}.`;
    return null;
  }

  for (const verdict of ['approve', 'deny'] as const) {
    router.get(`${APPROVAL_LINK_PATH}/:id/${verdict}`, async (req, res) => {
      try {
        const c = await check(req, verdict);
        if ('status' in c) return page(res, c.status, 'Approval link', `<p>${esc(c.message)}</p>`);
        const done = closed(c.i, deps.clock.now());
        if (done) return page(res, 409, 'Approval link', `<p>${done}</p>`);
        const action = c.verdict === 'approve' ? 'Approve' : 'Deny';
        page(
          res,
          200,
          `${action} this call?`,
          `${describe(c.i)}<p>Nothing has been answered yet: opening this page changes nothing.</p>` +
            `<form method="post"><p><label>Reason (optional)<br><input name="reason" maxlength="1000" size="50"></label></p>` +
            `<p><button type="submit">${action}</button></p></form>`,
        );
      } catch (err) {
        fail(res, err);
      }
    });

    router.post(`${APPROVAL_LINK_PATH}/:id/${verdict}`, form, async (req, res) => {
      try {
        const c = await check(req, verdict);
        if ('status' in c) return page(res, c.status, 'Approval link', `<p>${esc(c.message)}</p>`);
        const done = closed(c.i, deps.clock.now());
        if (done) return page(res, 409, 'Approval link', `<p>${done}</p>`);
        const raw = (req.body as Record<string, unknown> | undefined)?.reason;
        const reason = typeof raw === 'string' ? raw.slice(0, 1000) : '';
        const address = deps.clientAddress ? deps.clientAddress(req) : (req.socket.remoteAddress ?? '');
        const by = linkUser(c.issuer, address, req.get('user-agent'));
        const out = await answerApproval(deps, c.i.id, c.verdict, { by, via: 'link', reason });
        void deps.audit?.record({
          actor: { kind: 'link', role: null, label: `link:${c.i.id}` },
          action: `interaction.${c.verdict}`,
          target: c.i.id,
          client: address,
          status: 200,
          request: { method: 'POST', path: `${APPROVAL_LINK_PATH}/${c.i.id}/${c.verdict}` },
          before: { status: c.i.status },
          after: { status: out.interaction.status, resolution: out.interaction.resolution, run: out.interaction.run, run_status: out.run?.status ?? null },
          detail: { by, issuer: c.issuer, ...(reason ? { reason } : {}) },
        });
        page(
          res,
          200,
          c.verdict === 'approve' ? 'Approved' : 'Denied',
          `${describe(out.interaction)}<p>Answered: ${esc(out.interaction.status)}. The run goes on.</p>`,
        );
      } catch (err) {
        fail(res, err);
      }
    });
  }

  function fail(res: Response, err: unknown): void {
    const e = toHookyardError(err);
    const status = e instanceof HookyardError ? httpStatusOf(e.kind) : 500;
    if (status >= 500) deps.logger.error({ kind: e.kind, err: e.message }, 'approval link failed');
    page(res, status, 'Approval link', `<p>${status >= 500 ? 'Something went wrong; nothing was answered. Try again later.' : esc(e.message)}</p>`);
  }

  return router;
}
