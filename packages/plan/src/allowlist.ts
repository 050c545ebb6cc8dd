import { unauthorized, type Allowlist, type Hook, type HookyardError } from '@hookyard/core';
import { describeAllowlist, resolveAllowlist } from '@hookyard/tools';

/** The allowlist a hook's run is held to: the deployment's (HOOKS_TOOLS_ALLOW), narrowed by the hook's own `tools_allow`. */
export function hookAllowlist(hook: Pick<Hook, 'tools_allow'>, deployment: readonly string[]): Allowlist {
  return resolveAllowlist(hook.tools_allow, deployment);
}

/** The refusal of a tool outside its allowlist; `whose` names the caller (`hook 'x'`, `agent 'y'`). Built only on a refusal. */
export function notAllowed(tool: string, whose: string, list: Allowlist): HookyardError {
  return unauthorized(`tool '${tool}' is not allowed for ${whose} (allowlist ${describeAllowlist(list)})`);
}
