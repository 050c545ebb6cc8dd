import { Type } from '@sinclair/typebox';
import { answer, route } from '../decl';
import { Agent, AgentChangeInput, AgentInput, AgentWithToken, PlainName } from './agents-shared';

const AgentName = Type.Object({ name: PlainName('Agent name') });
/** A name off the pattern names no agent: the same 404 as an unknown one. */
const noAgent = (p: Record<string, string>) => `no agent named ${JSON.stringify((p.name ?? '').slice(0, 128))}`;
const REVOKES = 'The old token is refused from its next request on, and the MCP door closes the sessions opened with it.';

export const listAgents = route({
  method: 'GET',
  path: '/agents',
  role: 'admin',
  operationId: 'listAgents',
  tag: 'agents',
  summary: 'Every agent principal, by name, with its usage of the last 24 hours (never a token)',
  answers: { 200: answer('Agents', Type.Object({ agents: Type.Array(Agent) })) },
});

export const createAgent = route({
  method: 'POST',
  path: '/agents',
  role: 'admin',
  handlerChecks: ['params', 'query', 'body'],
  operationId: 'createAgent',
  tag: 'agents',
  summary: 'Make an agent principal with its own tool allowlist; its token is answered once',
  description: '400 names every bad or unknown field (a bad tools_allow entry by its index); 409 when the name is taken.',
  body: AgentInput,
  answers: { 201: answer('Made: the token is shown here once', AgentWithToken) },
  errors: [400, 409],
  audit: 'agent.create',
});

export const getAgent = route({
  method: 'GET',
  path: '/agents/:name',
  role: 'admin',
  operationId: 'getAgent',
  tag: 'agents',
  summary: 'One agent principal (never its token)',
  params: AgentName,
  paramsMiss: noAgent,
  answers: { 200: answer('The agent', Agent) },
  errors: [404],
});

export const updateAgent = route({
  method: 'PATCH',
  path: '/agents/:name',
  role: 'admin',
  handlerChecks: ['body'],
  operationId: 'updateAgent',
  tag: 'agents',
  summary: "Change an agent's description or tool allowlist; its token and id stay",
  description:
    "400 names every bad or unknown field (a bad tools_allow entry by its index). The new allowlist holds from the agent's next request on; its open MCP sessions are sent notifications/tools/list_changed.",
  params: AgentName,
  paramsMiss: noAgent,
  body: AgentChangeInput,
  answers: { 200: answer('Updated', Agent) },
  errors: [400, 404],
  audit: 'agent.update',
});

export const revokeAgent = route({
  method: 'DELETE',
  path: '/agents/:name',
  role: 'admin',
  operationId: 'revokeAgent',
  tag: 'agents',
  summary: 'Revoke an agent at once',
  description: `204: revoked. ${REVOKES} Its calls waiting on an approval end denied ("agent revoked"); the name is free again, and an agent made under it has a new id and none of these calls.`,
  params: AgentName,
  paramsMiss: noAgent,
  // 204 has no body: the answer check never sees it (res.end, not res.json).
  answers: { 204: answer('Revoked (no body)', Type.Null()) },
  errors: [404],
  audit: 'agent.remove',
});

export const rotateAgent = route({
  method: 'POST',
  path: '/agents/:name/rotate',
  role: 'admin',
  operationId: 'rotateAgent',
  tag: 'agents',
  summary: 'Give an agent a new token (answered once); the old one stops working at once',
  params: AgentName,
  paramsMiss: noAgent,
  answers: { 200: answer(`Rotated. ${REVOKES}`, AgentWithToken) },
  errors: [400, 404],
  audit: 'agent.rotate',
});

export const AGENT_ROUTES = [createAgent, listAgents, getAgent, updateAgent, revokeAgent, rotateAgent] as const;
