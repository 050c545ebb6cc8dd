import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger } from '@hookyard/core';
import { createMemoryStores } from '@hookyard/store';
import { TOKENS, startHarness } from './support/harness';
import { eventually } from './support/api-routes';

const RULES = [{ name: 'prod', tools: ['echo'], action: 'approve' }];

/**
 * What the trail keeps when it is under pressure: refused attempts are
 * bounded apart, so no flood of them pushes out a change, and anything
 * dropped for space is counted and logged; a change is recorded when its
 * route answers, whether or not its client stayed for the answer.
 */
describe('audit trail bounds', () => {
  it("a reader's refused writes never push out an admin's change: refusals are bounded apart (HOOKS_AUDIT_MAX_REFUSED), counted and logged when dropped", async () => {
    const stores = createMemoryStores();
    // Counts the entries the store has taken, so the test waits for all of them (they are written after each answer).
    const record = stores.audit.record.bind(stores.audit);
    let kept = 0;
    stores.audit.record = async (...args) => {
      const done = await record(...args);
      kept += 1;
      return done;
    };
    const warnings: Array<Record<string, unknown>> = [];
    const logger = Object.assign(silentLogger(), { warn: (fields: Record<string, unknown>) => void warnings.push(fields) });
    const h = await startHarness({ stores, settings: { auditMaxEntries: 100, auditMaxRefused: 10 }, deps: { limiter: null, logger } });
    try {
      expect((await h.call('/api/approval-policy', { method: 'PUT', role: 'admin', json: { rules: RULES } })).status).toBe(200);
      for (let i = 0; i < 110; i += 1) {
        expect((await h.call('/api/approval-policy', { method: 'PUT', role: 'reader', json: { rules: [] } })).status).toBe(403);
      }
      await eventually(
        async () => kept,
        (n) => n >= 111,
      );
      const change = await h.call('/api/audit?action=policy.update&actor=admin', { role: 'admin' });
      expect(change.body.entries).toEqual([expect.objectContaining({ status: 200, after: expect.objectContaining({ rules: RULES }) })]);
      // The refusals are still shown: the newest HOOKS_AUDIT_MAX_REFUSED of them.
      const refusals = await h.call('/api/audit?actor=reader&limit=500', { role: 'admin' });
      expect(refusals.body.entries).toHaveLength(10);
      expect(refusals.body.entries.every((e: any) => e.status === 403 && e.action === 'policy.update')).toBe(true);
      expect(refusals.body).toMatchObject({ max_entries: 100, max_refused: 10 });
      const dropped = await h.metrics.registry.getSingleMetricAsString('tai42_hook_runs_audit_dropped_total');
      expect(dropped).toContain('tai42_hook_runs_audit_dropped_total{list="refused"} 100');
      expect(dropped).not.toContain('list="changes"');
      // Said once (a WARN a minute at most), with how many went and the setting to raise.
      expect(warnings).toEqual([expect.objectContaining({ list: 'refused', dropped: 1, bound: 10 })]);
    } finally {
      await h.close();
    }
  });

  it('a change whose client hangs up before the answer is recorded once the change is made', async () => {
    const stores = createMemoryStores();
    // The policy write waits until the client has gone: the route answers a connection already closed.
    let entered!: () => void;
    const reached = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const putPolicy = stores.hooks.putApprovalPolicy.bind(stores.hooks);
    stores.hooks.putApprovalPolicy = async (...args) => {
      entered();
      await gate;
      return putPolicy(...args);
    };
    const h = await startHarness({ stores, deps: { limiter: null } });
    const server: Server = await new Promise((resolve) => {
      const s = h.app.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const body = JSON.stringify({ rules: RULES });
      const req = request({
        host: '127.0.0.1',
        port: (server.address() as AddressInfo).port,
        method: 'PUT',
        path: '/api/approval-policy',
        headers: { authorization: `Bearer ${TOKENS.admin}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      });
      req.on('error', () => undefined);
      req.end(body);
      await reached;
      req.destroy();
      const connections = () => new Promise<number>((resolve, reject) => server.getConnections((err, n) => (err ? reject(err) : resolve(n))));
      expect(await eventually(connections, (n) => n === 0)).toBe(0);
      release();
      const entries = await eventually(
        async () => (await h.call('/api/audit?action=policy.update', { role: 'admin' })).body.entries,
        (e: any[]) => e.length > 0,
      );
      expect((await stores.hooks.getApprovalPolicy()).rules).toEqual(RULES);
      expect(entries).toEqual([
        expect.objectContaining({ actor: expect.objectContaining({ role: 'admin' }), status: 200, after: expect.objectContaining({ rules: RULES }) }),
      ]);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await h.close();
    }
  });
});
