import type { Router } from 'express';
import { whoami } from '@hookyard/api';
import { roleOf } from './auth';
import type { ApiContext } from './context';
import { mount } from './declare';

/** `GET /api/whoami`: the role of the presented token (the console shows only what that role may do). */
export function whoamiRoutes(router: Router, ctx: ApiContext): void {
  mount(router, whoami, (_req, res) => res.json({ role: roleOf(res) }), { validateAnswers: ctx.validateAnswers });
}
