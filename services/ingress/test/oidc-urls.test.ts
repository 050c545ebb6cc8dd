/** Where the agent door looks for an issuer's metadata, and where it says its own is (RFC 8414 and RFC 9728 path insertion). */
import { metadataUrls } from '../src/oidc/issuer-keys';
import { challengeOf, metadataUrlOf, scopeAllowlist } from '../src/oidc/agent-oauth';

describe('OAuth discovery URLs', () => {
  it('an issuer with a path: RFC 8414 inserts the well-known before it, OIDC discovery appends it (Keycloak realms, tenants)', () => {
    expect(metadataUrls('https://kc.example.com/realms/hy')).toEqual([
      'https://kc.example.com/.well-known/oauth-authorization-server/realms/hy',
      'https://kc.example.com/realms/hy/.well-known/openid-configuration',
    ]);
    expect(metadataUrls('https://idp.example.com/')).toEqual([
      'https://idp.example.com/.well-known/oauth-authorization-server',
      'https://idp.example.com/.well-known/openid-configuration',
    ]);
  });

  it("the resource's metadata URL inserts the well-known before the resource's path; a resource that is no URL uses HOOKS_PUBLIC_URL's root", () => {
    expect(metadataUrlOf('https://hooks.example.com/mcp', undefined)).toBe('https://hooks.example.com/.well-known/oauth-protected-resource/mcp');
    expect(metadataUrlOf('api://hookyard', 'https://hooks.example.com')).toBe('https://hooks.example.com/.well-known/oauth-protected-resource');
  });

  it('scopes: hookyard:agent is all the agent may call, tools:<name> one tool each, anything else none (insufficient_scope)', () => {
    expect(scopeAllowlist(['openid', 'hookyard:agent'])).toEqual(['*']);
    expect(scopeAllowlist(['tools:echo', 'tools:deploy', 'tools:'])).toEqual(['echo', 'deploy']);
    expect(scopeAllowlist(['openid', 'email'])).toBeNull();
  });

  it('a challenge quotes its parameters safely: a quote in a sentence cannot end the parameter', () => {
    const o = {
      resource: 'https://h/mcp',
      metadataUrl: 'https://h/.well-known/oauth-protected-resource/mcp',
      issuers: [],
      verify: () => Promise.reject(new Error('unused')),
    };
    expect(challengeOf(o, { status: 401, message: 'issuer "x" is not trusted', error: 'invalid_token' })).toBe(
      'Bearer resource_metadata="https://h/.well-known/oauth-protected-resource/mcp", scope="hookyard:agent", error="invalid_token", error_description="issuer \'x\' is not trusted"',
    );
    expect(challengeOf(null)).toBe('Bearer realm="hookyard"');
  });
});
