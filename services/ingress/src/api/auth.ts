import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { forbidden, unauthorized, type ApiToken, type Role } from '@hookyard/core';

const RANK: Record<Role, number> = { reader: 0, operator: 1, admin: 2 };

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/**
 * Resolves a bearer token to its role. Every configured token is compared,
 * each as an equal-length SHA-256 digest through timingSafeEqual, so neither
 * a token's length nor how many characters match shows in the timing.
 * The highest role of the matching tokens wins.
 */
export function createTokenResolver(tokens: readonly ApiToken[]): (presented: string) => Role | undefined {
  const table = tokens.map((t) => ({ role: t.role, digest: digest(t.token) }));
  return (presented) => {
    const d = digest(presented);
    let found: Role | undefined;
    for (const t of table) {
      if (timingSafeEqual(d, t.digest) && (found === undefined || RANK[t.role] > RANK[found])) found = t.role;
    }
    return found;
  };
}

/**
 * Who made the request, for the records an answer leaves (`by`): the role and
 * the first 8 hex chars of the token's SHA-256, which tell tokens apart
 * without showing one.
 */
export function callerOf(res: Response): string {
  return `${roleOf(res)}:${String(res.locals.tokenId ?? '?')}`;
}

/** The role of the request, set by `authenticate`. */
export function roleOf(res: Response): Role {
  return res.locals.role as Role;
}

/** Express middleware: a valid `Authorization: Bearer <token>` or 401. No token configured means no access. */
export function authenticate(resolve: (presented: string) => Role | undefined) {
  return (req: Request, res: Response, next: NextFunction) => {
    const header = req.headers.authorization;
    const m = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) return next(unauthorized('missing bearer token (Authorization: Bearer <token>)'));
    const role = resolve(m[1]!);
    if (!role) return next(unauthorized('the bearer token is not valid'));
    res.locals.role = role;
    res.locals.tokenId = digest(m[1]!).subarray(0, 4).toString('hex');
    next();
  };
}

/** Express middleware: the authenticated role must be at least `min`, else 403. */
export function requireRole(min: Role) {
  return (_req: Request, res: Response, next: NextFunction) => {
    const role = roleOf(res);
    if (RANK[role] < RANK[min]) return next(forbidden(`this route needs the ${min} role; the token has ${role}`));
    next();
  };
}
