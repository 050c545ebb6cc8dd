import type { Router } from 'express';
import { whoami } from '@hookyard/api';
import { personOf, roleOf } from './auth';
import type { ApiContext } from './context';
import { mount } from './declare';

/**
 * `GET /api/whoami`: the role of the presented token (the console shows only
 * what that role may do); for a person signed in through the IdP, also who
 * (`person: {issuer, subject, name}`), which the console shows as signed in.
 */
export function whoamiRoutes(router: Router, ctx: ApiContext): void {
  mount(
    router,
    whoami,
    (_req, res) => {
      const person = personOf(res);
      res.json({ role: roleOf(res), ...(person ? { person: { issuer: person.issuer, subject: person.subject, name: person.name } } : {}) });
    },
    { validateAnswers: ctx.validateAnswers },
  );
}
