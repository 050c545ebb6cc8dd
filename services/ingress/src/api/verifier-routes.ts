import type { Router } from 'express';
import { getVerifier, putVerifier, removeVerifier } from '@hookyard/api';
import { badInput, createSecretResolver, notFound, secretScopeOf, type SecretResolver } from '@hookyard/core';
import { redactBinding, validateVerifierBinding } from '../verify';
import { mount } from './declare';
import type { ApiContext } from './context';

/**
 * A topic's verifier binding. Bindings hold secret references only; a GET
 * still goes through redactBinding so nothing that looks like a literal
 * secret is ever echoed. Changing one is admin work.
 */
export function verifierRoutes(router: Router, ctx: ApiContext): void {
  const secrets = ctx.secrets ?? createSecretResolver({ scope: secretScopeOf(ctx.settings) });
  const opts = { validateAnswers: ctx.validateAnswers };
  mount(
    router,
    getVerifier,
    async (req, res) => {
      const topic = req.checked.params.topic;
      const binding = await ctx.stores.hooks.getVerifier(topic);
      if (!binding) throw notFound(`topic ${JSON.stringify(topic)} has no verifier binding`);
      res.json(redactBinding(binding));
    },
    opts,
  );

  mount(
    router,
    putVerifier,
    async (req, res) => {
      // validateVerifierBinding checks the topic and the body (the declaration leaves both to it).
      const topic = req.params.topic as string;
      const checked = validateVerifierBinding(topic, req.body, new Date(ctx.clock.now()), secretScopeOf(ctx.settings));
      if (!checked.ok) throw badInput('verifier binding refused', checked.errors);
      const binding = checked.binding;
      // A secret the ingress cannot read would make every delivery a 500 while the sender retries for days: refused now.
      const unreadable = await unreadableSecrets(binding.secrets, 'secret' in (req.body as object) ? 'secret' : 'secrets', secrets);
      if (unreadable.length) throw badInput('verifier binding refused', unreadable);
      const previous = await ctx.stores.hooks.getVerifier(topic);
      if (previous) binding.created_at = previous.created_at;
      const { created } = await ctx.stores.hooks.putVerifier(binding);
      ctx.onVerifierChanged(topic);
      ctx.logger.info({ topic, kind: binding.kind, created }, created ? 'verifier bound' : 'verifier replaced');
      res.status(created ? 201 : 200).json({ created, verifier: redactBinding(binding) });
    },
    opts,
  );

  mount(
    router,
    removeVerifier,
    async (req, res) => {
      const topic = req.checked.params.topic;
      if (!(await ctx.stores.hooks.removeVerifier(topic))) throw notFound(`topic ${JSON.stringify(topic)} has no verifier binding`);
      ctx.onVerifierChanged(topic);
      ctx.logger.info({ topic }, 'verifier removed; the topic is open');
      res.json({ removed: true, topic });
    },
    opts,
  );
}

/**
 * One line per reference the ingress cannot read now (a variable not set or
 * empty, a file missing, unreadable or empty), naming the field and the
 * reference and how to fix it; never a value.
 */
async function unreadableSecrets(refs: readonly string[], field: 'secret' | 'secrets', secrets: SecretResolver): Promise<string[]> {
  const lines: string[] = [];
  for (const [i, ref] of refs.entries()) {
    try {
      await secrets.resolve(ref);
    } catch (err) {
      const at = field === 'secret' ? 'secret' : `secrets[${i}]`;
      const fix = ref.startsWith('env:')
        ? `set ${ref.slice(4)} (non-empty) in the ingress's environment and restart it`
        : `mount the file ${ref.slice(5)} (non-empty, readable by the ingress)`;
      lines.push(`${at} ${ref}: the ingress cannot read it (${(err as Error).message}); ${fix}, then bind again`);
    }
  }
  return lines;
}
