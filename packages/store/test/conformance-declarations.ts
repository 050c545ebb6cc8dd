import { openDeclaration } from '@hookyard/core';
import type { HookSubject, StateDeclarationInput } from '@hookyard/core';
import { T0, hook, rejection, useStores, type StoresFactory } from './fixtures';

const checks: StateDeclarationInput = {
  scope: 'github',
  kind: 'pull_request',
  schema: { type: 'object', properties: { checks: { type: 'object' } } },
  description: 'a pull request as the hooks see it',
  templates: { key_expr: { content: '"\\(.repo)#\\(.pr)"' } },
};
const subject = (attach?: string, kind = 'pull_request'): HookSubject => ({
  scope: 'github',
  kind,
  key_expr: { content: '.pr' },
  ...(attach === undefined ? {} : { attach }),
});

/** Declared states: versions, listing, the binding checks of putHook, and a removal refused while bound. */
export function describeDeclarationConformance(name: string, factory: StoresFactory): void {
  describe(`${name} state declarations`, () => {
    const stores = useStores(factory);

    it('declares a state at version 1, bumps the version on change, keeps created_at, lists by name', async () => {
      const s = stores();
      const first = await s.declarations.putDeclaration(checks, T0);
      expect(first).toMatchObject({ created: true, previous: null, declaration: { ...checks, version: 1, created_at: new Date(T0).toISOString() } });
      const again = await s.declarations.putDeclaration({ ...checks, description: 'v2' }, T0 + 1000);
      expect(again.created).toBe(false);
      expect(again.previous?.version).toBe(1);
      expect(again.declaration).toMatchObject({
        version: 2,
        description: 'v2',
        created_at: new Date(T0).toISOString(),
        updated_at: new Date(T0 + 1000).toISOString(),
      });
      await s.declarations.putDeclaration({ ...checks, scope: 'acme', kind: 'deploy' }, T0);
      expect((await s.declarations.listDeclarations()).map((d) => `${d.scope}/${d.kind}`)).toEqual(['acme/deploy', 'github/pull_request']);
      expect(await s.declarations.getDeclaration('github', 'pull_requests')).toBeNull();
    });

    it('a binding of an undeclared state stores no hook: not_found naming the state and the nearest declared one', async () => {
      const s = stores();
      await s.declarations.putDeclaration(checks, T0);
      const err = await rejection(s.hooks.putHook(hook('h', 't', { subject: subject('/checks', 'pull_requests') })));
      expect(err.kind).toBe('not_found');
      expect(err.message).toContain("subject github/pull_requests is not a declared state; did you mean 'github/pull_request'?");
      expect(await s.hooks.getHook('h')).toBeNull();
      expect(await s.hooks.hooksOnTopic('t')).toEqual([]);
      expect(await s.declarations.getDeclaration('github', 'pull_requests')).toBeNull();
    });

    it('an attach path another hook holds — the same, one inside it or one around it — is conflict naming that hook; nothing stored', async () => {
      const s = stores();
      await s.declarations.putDeclaration(checks, T0);
      await s.hooks.putHook(hook('ci', 't', { subject: subject('/checks') }));
      for (const attach of ['/checks', '/checks/lint', '']) {
        const err = await rejection(s.hooks.putHook(hook('other', 't', { subject: subject(attach) })));
        expect(err.kind).toBe('conflict');
        expect(err.message).toContain(`attach path ${JSON.stringify(attach)} overlaps hook 'ci', which binds attach path "/checks"`);
      }
      // A subject without attach writes the whole document: it overlaps every path.
      expect((await rejection(s.hooks.putHook(hook('other', 't', { subject: subject() })))).kind).toBe('conflict');
      expect(await s.hooks.getHook('other')).toBeNull();
      expect(await s.declarations.bindings('github', 'pull_request')).toEqual([{ hook: 'ci', attach: '/checks' }]);
      // A sibling path, or "/checksum" (not inside "/checks"), is free.
      await s.hooks.putHook(hook('reviews', 't', { subject: subject('/reviews') }));
      await s.hooks.putHook(hook('sum', 't', { subject: subject('/checksum') }));
      // The hook itself may move its own path.
      await s.hooks.putHook(hook('ci', 't', { subject: subject('/checks/all') }));
      expect(await s.declarations.bindings('github', 'pull_request')).toEqual([
        { hook: 'ci', attach: '/checks/all' },
        { hook: 'reviews', attach: '/reviews' },
        { hook: 'sum', attach: '/checksum' },
      ]);
    });

    it('a refused binding leaves the hook it would replace as it was, still keeping runs on its topic', async () => {
      const s = stores();
      await s.declarations.putDeclaration(checks, T0);
      await s.hooks.putHook(hook('ci', 't', { subject: subject('/checks') }));
      await s.hooks.putHook(hook('lint', 'old', { subject: subject('/lint') }));
      await rejection(s.hooks.putHook(hook('lint', 'new', { subject: subject('/checks/lint') })));
      await rejection(s.hooks.putHook(hook('lint', 'new', { subject: subject('/x', 'nope') })));
      expect((await s.hooks.getHook('lint'))?.topic).toBe('old');
      const kept = await s.runs.keepEvent({ topic: 'old', payload: {}, now: T0, dispatchGraceMs: 0 });
      expect(kept.map((k) => k.hook)).toEqual(['lint']);
      expect(await s.declarations.bindings('github', 'pull_request')).toEqual([
        { hook: 'ci', attach: '/checks' },
        { hook: 'lint', attach: '/lint' },
      ]);
    });

    it('a subject without attach on an undeclared state stores no hook and declares nothing (not_found); on a declared one they share the whole document', async () => {
      const s = stores();
      await s.declarations.putDeclaration(checks, T0);
      const err = await rejection(s.hooks.putHook(hook('a', 't', { subject: subject(undefined, 'issue') })));
      expect(err.kind).toBe('not_found');
      expect(err.message).toContain('subject github/issue is not a declared state (declare it: PUT /api/states/declarations/github/issue); no hook stored');
      expect(await s.hooks.getHook('a')).toBeNull();
      expect(await s.hooks.hooksOnTopic('t')).toEqual([]);
      expect(await s.declarations.getDeclaration('github', 'issue')).toBeNull();
      expect(await s.declarations.bindings('github', 'issue')).toEqual([]);
      await s.declarations.putDeclaration(openDeclaration('github', 'issue', 'issues'), T0);
      await s.hooks.putHook(hook('a', 't', { subject: subject(undefined, 'issue') }));
      await s.hooks.putHook(hook('b', 't', { subject: subject(undefined, 'issue') }));
      expect((await s.declarations.getDeclaration('github', 'issue'))?.version).toBe(1);
      expect(await s.declarations.bindings('github', 'issue')).toEqual([
        { hook: 'a', attach: null },
        { hook: 'b', attach: null },
      ]);
      expect((await rejection(s.hooks.putHook(hook('c', 't', { subject: subject('/x', 'issue') })))).message).toContain("overlaps hook 'a'");
    });

    it('removing a declaration is refused while a hook binds it (conflict naming the hooks); a hook removed or rebound frees it', async () => {
      const s = stores();
      await s.declarations.putDeclaration(checks, T0);
      await s.declarations.putDeclaration({ ...checks, kind: 'issue' }, T0);
      await s.hooks.putHook(hook('ci', 't', { subject: subject('/checks') }));
      await s.hooks.putHook(hook('rev', 't', { subject: subject('/reviews') }));
      const err = await rejection(s.declarations.removeDeclaration('github', 'pull_request'));
      expect(err.kind).toBe('conflict');
      expect(err.message).toContain("bound by hooks 'ci', 'rev'");
      expect(await s.declarations.getDeclaration('github', 'pull_request')).not.toBeNull();
      await s.hooks.removeHook('ci');
      await s.hooks.putHook(hook('rev', 't', { subject: subject('/reviews', 'issue') }));
      expect(await s.declarations.bindings('github', 'pull_request')).toEqual([]);
      expect(await s.declarations.bindings('github', 'issue')).toEqual([{ hook: 'rev', attach: '/reviews' }]);
      expect((await s.declarations.removeDeclaration('github', 'pull_request'))?.version).toBe(1);
      expect(await s.declarations.removeDeclaration('github', 'pull_request')).toBeNull();
      expect(await s.declarations.getDeclaration('github', 'pull_request')).toBeNull();
    });

    describe('writes obey the declaration', () => {
      const pr = { scope: 'github', kind: 'pull_request', key: 'acme/api#7' };
      const byHook = (hookName: string) => ({ door: 'hook' as const, actor: 'run-1', hook: hookName, now: T0 });
      const byApi = { door: 'api' as const, actor: 'operator:ab12cd34', hook: null, now: T0 };
      const declare = async () => {
        const s = stores();
        await s.declarations.putDeclaration(
          { ...checks, schema: { type: 'object', properties: { checks: { type: 'object', properties: { status: { enum: ['pending', 'green'] } } } } } },
          T0,
        );
        await s.declarations.putDeclaration({ ...checks, kind: 'issue' }, T0);
        await s.hooks.putHook(hook('ci', 't', { subject: subject('/checks') }));
        await s.hooks.putHook(hook('all', 't', { subject: subject('', 'issue') }));
        return s;
      };

      it('a hook writes inside its attach path (set and merge); outside it is forbidden naming the path, and nothing is written', async () => {
        const s = await declare();
        await s.states.set(pr, { checks: { status: 'pending' } }, byHook('ci'));
        expect((await s.states.merge(pr, { checks: { status: 'green' } }, byHook('ci'))).version).toBe(2);
        await s.states.set(pr, { reviews: { ann: 'ok' }, checks: { status: 'green' } }, byApi);
        for (const write of [
          () => s.states.merge(pr, { reviews: { bob: 'no' } }, byHook('ci')),
          () => s.states.set(pr, { checks: { status: 'green' } }, byHook('ci')),
          () => s.states.remove(pr, byHook('ci')),
        ]) {
          const err = await rejection(write());
          expect(err.kind).toBe('forbidden');
          expect(err.message).toContain(`hook 'ci' writes only at its attach path "/checks"`);
        }
        // A hook that binds another state may not write this one.
        expect((await rejection(s.states.merge(pr, { x: 1 }, byHook('all')))).message).toContain("hook 'all' does not bind state github/pull_request");
        expect(await s.states.get(pr)).toMatchObject({ version: 3, document: { reviews: { ann: 'ok' }, checks: { status: 'green' } } });
      });

      it('a hook or agent that binds no part of a state writes the whole document while no binding holds an attach path in it', async () => {
        const s = stores();
        await s.declarations.putDeclaration(openDeclaration('github', 'issue', 'issues'), T0);
        await s.hooks.putHook(hook('old', 't', { subject: subject(undefined, 'issue') }));
        const issue = { ...pr, kind: 'issue' };
        expect((await s.states.merge(issue, { a: 1 }, byHook('agent:bot'))).version).toBe(1);
        expect((await s.states.merge(issue, { b: 2 }, byHook('old'))).document).toEqual({ a: 1, b: 2 });
      });

      it('every write, from a hook or the API, is validated against the declared schema: bad_input with the JSON pointer and ajv message, nothing written', async () => {
        const s = await declare();
        for (const write of [() => s.states.merge(pr, { checks: { status: 'purple' } }, byHook('ci')), () => s.states.set(pr, { checks: 'green' }, byApi)]) {
          const err = await rejection(write());
          expect(err.kind).toBe('bad_input');
          expect(err.message).toMatch(
            /^state github\/pull_request\/"acme\/api#7": the document does not match the declared schema: \/checks(\/status)? must be (equal to one of the allowed values|object)$/,
          );
        }
        expect(await s.states.get(pr)).toBeNull();
      });

      it('a write to a state never declared, from a hook or the API, is not_found naming it and how to declare it; nothing written', async () => {
        const s = await declare();
        const typo = { ...pr, kind: 'pull_requests' };
        for (const write of [
          () => s.states.set(typo, { anything: [1] }, byApi),
          () => s.states.merge(typo, { anything: [1] }, byHook('ci')),
          () => s.states.set(typo, {}, byHook('agent:bot')),
        ]) {
          const err = await rejection(write());
          expect(err.kind).toBe('not_found');
          expect(err.message).toContain(
            "github/pull_requests is not a declared state (did you mean 'github/pull_request'?); nothing written. Declare it first: PUT /api/states/declarations/github/pull_requests",
          );
        }
        expect(await s.states.get(typo)).toBeNull();
        expect(await s.states.kinds()).toEqual([]);
      });
    });
  });
}
