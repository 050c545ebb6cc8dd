import type { Router } from 'express';
import { requireRole, roleOf } from './auth';
import type { ApiContext } from './context';

/** `GET /api/whoami`: the role of the presented token (the console shows only what that role may do). */
export function whoamiRoutes(router: Router, _ctx: ApiContext): void {
  router.get('/whoami', requireRole('reader'), (_req, res) => {
    res.json({ role: roleOf(res) });
  });
}
