import type { Router } from 'express';
import { personOf, requireRole, roleOf } from './auth';
import type { ApiContext } from './context';

/**
 * `GET /api/whoami`: the role of the presented token (the console shows only
 * what that role may do); for a person signed in through the IdP, also who
 * (`person: {subject, name}`), which the console shows as signed in.
 */
export function whoamiRoutes(router: Router, _ctx: ApiContext): void {
  router.get('/whoami', requireRole('reader'), (_req, res) => {
    const person = personOf(res);
    res.json({ role: roleOf(res), ...(person ? { person: { issuer: person.issuer, subject: person.subject, name: person.name } } : {}) });
  });
}
