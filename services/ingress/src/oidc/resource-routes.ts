import type { Express } from 'express';
import { protectedResourceMetadata, type AgentOAuth } from './agent-oauth';

/** RFC 9728's well-known path, at the root and path-suffixed for /mcp (where the MCP SDK looks first). */
export const RESOURCE_METADATA_PATHS = ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp'];

/**
 * Serves the agent door's protected resource metadata, only when an issuer
 * is configured: without one these paths stay 404, so no client is sent
 * looking for an authorization server there is none of. Public and
 * cacheable, readable cross-origin (a browser-based MCP client reads it).
 */
export function protectedResourceRoutes(app: Express, oauth: AgentOAuth | null): void {
  if (!oauth) return;
  const doc = protectedResourceMetadata(oauth);
  app.get(RESOURCE_METADATA_PATHS, (_req, res) => {
    res.set({ 'Access-Control-Allow-Origin': '*', 'Cache-Control': 'public, max-age=300' }).json(doc);
  });
}
