import { createHash } from 'node:crypto';
import { TOOL_NAME_MAX_LENGTH, isValidName } from '@hookyard/core';
import { applyInjected, stripInjected } from '../src/provider/injected';
import { nameSlug, providerOf, providerToolName } from '../src/provider/naming';

describe('tool names of discovered operations', () => {
  it.each([
    ['getPet', 'get_pet'],
    ['list_notes', 'list_notes'],
    ['GET /pets/{petId}', 'get_pets_pet_id'],
    ['files.read', 'files_read'],
    ['Résumé-Parse', 'r_sum_-parse'],
    ['__', 'op'],
  ])('%j -> %j', (raw, slug) => {
    expect(nameSlug(raw)).toBe(slug);
    expect(isValidName(providerToolName('svc', raw))).toBe(true);
  });

  it('stays a valid name when long, distinct for distinct long operations', () => {
    const a = providerToolName('svc', `op${'x'.repeat(200)}A`);
    const b = providerToolName('svc', `op${'x'.repeat(200)}B`);
    expect(a.length).toBeLessThanOrEqual(TOOL_NAME_MAX_LENGTH);
    expect(isValidName(a)).toBe(true);
    expect(a).not.toBe(b);
  });

  it('a long name is cut to 64 with the first 8 hex digits of the SHA-256 of the raw name, the same every time', () => {
    const raw = 'repos/list-custom-deployment-rule-integrations-for-an-environment';
    const name = providerToolName('github', raw);
    // Pinned: a name that changed between releases would orphan every hook that calls it.
    expect(name).toBe('github__repos_list-custom-deployment-rule-integrations_a5c3c2a4');
    expect(createHash('sha256').update(raw).digest('hex').startsWith('a5c3c2a4')).toBe(true);
    expect(name.length).toBeLessThanOrEqual(64);
    expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(providerToolName('github', raw)).toBe(name);
  });

  it('the provider is the part before the first separator', () => {
    expect(providerOf('svc__get_pet')).toBe('svc');
    expect(providerOf('svc__a__b')).toBe('svc');
    expect(providerOf('plain')).toBeUndefined();
  });
});

describe('injected parameters', () => {
  const schema = { type: 'object', properties: { q: { type: 'string' }, token: { type: 'string' } }, required: ['q', 'token'] };

  it('are removed from properties and required', () => {
    expect(stripInjected(schema, ['token'])).toEqual({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'] });
    expect(stripInjected({ ...schema, required: ['token'] }, ['token'])).toEqual({ type: 'object', properties: { q: { type: 'string' } } });
  });

  it('are applied over the caller, only where the tool declares them', () => {
    expect(applyInjected({ q: 'x', token: 'forged' }, { token: 't', tenant: 'a' }, new Set(['q', 'token']))).toEqual({ q: 'x', token: 't' });
  });
});
