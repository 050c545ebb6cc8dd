import { TOKEN_PLACEHOLDER, clientConfigs, mcpUrl } from '../src/connect';

describe('console: Connect a client', () => {
  const byId = (name: string, url: string, token: string | null) => Object.fromEntries(clientConfigs(name, url, token).map((c) => [c.id, c.text]));

  it('fills the door URL from the origin and the token into each client configuration', () => {
    const url = mcpUrl('https://hooks.example.com/');
    expect(url).toBe('https://hooks.example.com/mcp');
    const c = byId('ci-bot', url, 'hya_abc');
    expect(c['claude-code']).toBe('claude mcp add --transport http ci-bot https://hooks.example.com/mcp --header "Authorization: Bearer hya_abc"');
    expect(JSON.parse(c.vscode!)).toEqual({
      servers: { 'ci-bot': { type: 'http', url: 'https://hooks.example.com/mcp', headers: { Authorization: 'Bearer hya_abc' } } },
    });
    expect(JSON.parse(c.cursor!)).toEqual({ mcpServers: { 'ci-bot': { url: 'https://hooks.example.com/mcp', headers: { Authorization: 'Bearer hya_abc' } } } });
    expect(JSON.parse(c['mcp-remote']!)).toEqual({
      mcpServers: {
        'ci-bot': {
          command: 'npx',
          args: ['-y', 'mcp-remote', 'https://hooks.example.com/mcp', '--header', 'Authorization:${AUTH_HEADER}'],
          env: { AUTH_HEADER: 'Bearer hya_abc' },
        },
      },
    });
  });

  it('without a token each snippet carries the placeholder; mcp-remote gets --allow-http for plain http off loopback only', () => {
    const c = byId('ops', 'http://10.0.0.5:8080/mcp', null);
    for (const text of Object.values(c)) expect(text).toContain(`Bearer ${TOKEN_PLACEHOLDER}`);
    expect(JSON.parse(c['mcp-remote']!).mcpServers.ops.args).toContain('--allow-http');
    const local = byId('ops', mcpUrl('http://127.0.0.1:8080'), null);
    expect(JSON.parse(local['mcp-remote']!).mcpServers.ops.args).not.toContain('--allow-http');
  });
});
