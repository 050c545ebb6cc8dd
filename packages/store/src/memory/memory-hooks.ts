import {
  conflict,
  notFound,
  triggerRefusal,
  type TriggerLink,
  type TriggerLinkUse,
  type ApprovalPolicy,
  type ApprovalRule,
  type Hook,
  type JqTemplate,
  type RemoteToolRecord,
  type VerifierBinding,
  type DedupeBinding,
} from '@hookyard/core';
import type { DiscoveryOutcome, DiscoveryStatus, ToolStore } from '@hookyard/core';
import type { HookStore } from '../types';
import { hookRevision } from '../hook-revision';
import { pendingToolId } from '../pending-tool';
import { MemoryStateDeclarations } from './memory-declarations';

const byKey =
  <T>(key: (v: T) => string) =>
  (a: T, b: T) =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;

/**
 * Hooks, verifier bindings and templates in one process.
 * Values are cloned on the way in and out so callers never share state with the store.
 */
export class MemoryHookStore implements HookStore {
  private readonly hooks = new Map<string, Hook>();
  /** Hook name -> the revision of its record (changes with the record, as in Redis). */
  private readonly revisions = new Map<string, string>();
  private readonly verifiers = new Map<string, VerifierBinding>();
  private readonly dedupes = new Map<string, DedupeBinding>();
  private readonly templates = new Map<string, JqTemplate>();
  private policy: ApprovalPolicy = { version: 0, rules: [], updated_at: null };
  /** Trigger links by id, and token hash -> id (the one lookup a use makes). */
  private readonly links = new Map<string, { link: TriggerLink; tokenHash: string }>();
  private readonly linkTokens = new Map<string, string>();

  /** `declarations`: the states hooks bind, checked in putHook's step. */
  constructor(readonly declarations: MemoryStateDeclarations = new MemoryStateDeclarations()) {}

  /** Synchronous read for the run store's keep step (one atomic step with the run writes). */
  hookNamesOnTopic(topic: string): string[] {
    return [...this.hooks.values()]
      .filter((h) => h.topic === topic)
      .map((h) => h.name)
      .sort();
  }

  /** Synchronous read for the run store's claim step: the current revision of hook `name`, null when gone. */
  revisionOf(name: string): string | null {
    return this.revisions.get(name) ?? null;
  }

  async putHook(hook: Hook): Promise<{ created: boolean; previous: Hook | null }> {
    const previous = this.hooks.get(hook.name) ?? null;
    // Checked and recorded in this synchronous step: a refused binding stores no hook.
    this.declarations.bind(hook, previous);
    this.hooks.set(hook.name, structuredClone(hook));
    this.revisions.set(hook.name, hookRevision(JSON.stringify(hook)));
    return { created: previous === null, previous };
  }
  async getHook(name: string): Promise<Hook | null> {
    const hook = this.hooks.get(name);
    return hook ? structuredClone(hook) : null;
  }
  async getHookRevision(name: string): Promise<{ hook: Hook; revision: string } | null> {
    const hook = this.hooks.get(name);
    const revision = this.revisions.get(name);
    return hook && revision ? { hook: structuredClone(hook), revision } : null;
  }
  async removeHook(name: string): Promise<boolean> {
    this.revisions.delete(name);
    this.declarations.unbind(this.hooks.get(name) ?? null);
    // Its trigger links go in the same step (as remove_hook.lua): a hook registered again later starts with none.
    for (const [id, l] of this.links) {
      if (l.link.hook !== name) continue;
      this.links.delete(id);
      this.linkTokens.delete(l.tokenHash);
    }
    return this.hooks.delete(name);
  }

  async putTriggerLink(link: TriggerLink, tokenHash: string): Promise<void> {
    if (!this.hooks.has(link.hook)) throw notFound(`no hook named ${JSON.stringify(link.hook)}`);
    // As the Redis store keeps it: a new link was never used.
    this.links.set(link.id, { link: { ...structuredClone(link), last_used_at: null }, tokenHash });
    this.linkTokens.set(tokenHash, link.id);
  }
  async listTriggerLinks(hook: string): Promise<TriggerLink[]> {
    const mine = [...this.links.values()].map((l) => l.link).filter((l) => l.hook === hook);
    return structuredClone(mine.sort(byKey((l) => `${l.created_at} ${l.id}`)));
  }
  async revokeTriggerLink(hook: string, id: string): Promise<TriggerLink | null> {
    const l = this.links.get(id);
    if (!l || l.link.hook !== hook) return null;
    l.link.revoked = true;
    return structuredClone(l.link);
  }
  async useTriggerLink(tokenHash: string, now: number): Promise<TriggerLinkUse> {
    const id = this.linkTokens.get(tokenHash);
    const l = id === undefined ? undefined : this.links.get(id);
    if (!l) return { ok: false, reason: 'unknown' };
    const refusal = triggerRefusal(l.link, now);
    if (refusal) return { ok: false, reason: refusal };
    l.link.uses += 1;
    l.link.last_used_at = new Date(now).toISOString();
    return { ok: true, link: structuredClone(l.link) };
  }
  async returnTriggerLinkUse(id: string): Promise<void> {
    const l = this.links.get(id);
    if (l && l.link.uses > 0) l.link.uses -= 1;
  }
  async listHooks(): Promise<Hook[]> {
    return structuredClone([...this.hooks.values()].sort(byKey((h) => h.name)));
  }
  async hooksOnTopic(topic: string): Promise<Hook[]> {
    return structuredClone([...this.hooks.values()].filter((h) => h.topic === topic).sort(byKey((h) => h.name)));
  }

  async putVerifier(binding: VerifierBinding): Promise<{ created: boolean }> {
    const created = !this.verifiers.has(binding.topic);
    this.verifiers.set(binding.topic, structuredClone(binding));
    return { created };
  }
  async getVerifier(topic: string): Promise<VerifierBinding | null> {
    const v = this.verifiers.get(topic);
    return v ? structuredClone(v) : null;
  }
  async removeVerifier(topic: string): Promise<boolean> {
    return this.verifiers.delete(topic);
  }
  async putDedupe(binding: DedupeBinding): Promise<{ created: boolean }> {
    const created = !this.dedupes.has(binding.topic);
    this.dedupes.set(binding.topic, structuredClone(binding));
    return { created };
  }
  async getDedupe(topic: string): Promise<DedupeBinding | null> {
    const d = this.dedupes.get(topic);
    return d ? structuredClone(d) : null;
  }
  async removeDedupe(topic: string): Promise<boolean> {
    return this.dedupes.delete(topic);
  }
  /** Topics with a dedupe key (HookStore has no listing of them; see memoryOnlyCounts). */
  dedupeKeyCount(): number {
    return this.dedupes.size;
  }
  async listVerifiers(): Promise<VerifierBinding[]> {
    return structuredClone([...this.verifiers.values()].sort(byKey((v) => v.topic)));
  }

  async putTemplate(template: JqTemplate): Promise<void> {
    this.templates.set(template.id, structuredClone(template));
  }
  async getTemplate(id: string): Promise<JqTemplate | null> {
    const t = this.templates.get(id);
    return t ? structuredClone(t) : null;
  }
  async removeTemplate(id: string): Promise<boolean> {
    return this.templates.delete(id);
  }
  async listTemplates(): Promise<JqTemplate[]> {
    return structuredClone([...this.templates.values()].sort(byKey((t) => t.id)));
  }

  async getApprovalPolicy(): Promise<ApprovalPolicy> {
    return structuredClone(this.policy);
  }
  /** The policy's version (what a planned claim checks). */
  policyVersion(): number {
    return this.policy.version;
  }
  async putApprovalPolicy(rules: ApprovalRule[], expectedVersion: number | null, now: number): Promise<ApprovalPolicy> {
    if (expectedVersion !== null && expectedVersion !== this.policy.version) {
      throw conflict(
        `the approval policy is at version ${this.policy.version}, not the version ${expectedVersion} this change was made against; read it again and retry`,
      );
    }
    this.policy = { version: this.policy.version + 1, rules: structuredClone(rules), updated_at: new Date(now).toISOString() };
    return structuredClone(this.policy);
  }
}

export class MemoryToolStore implements ToolStore {
  private readonly tools = new Map<string, RemoteToolRecord>();
  private readonly discovery = new Map<string, DiscoveryStatus>();
  private readonly pending = new Map<string, { record: RemoteToolRecord; until: number }>();

  /** `now` decides when a pending registration has expired (default Date.now). */
  constructor(private readonly now: () => number = Date.now) {}

  async putPendingTool(record: RemoteToolRecord, ttlMs: number): Promise<string> {
    const now = this.now();
    for (const [id, p] of this.pending) if (p.until <= now) this.pending.delete(id);
    const id = pendingToolId();
    this.pending.set(id, { record: structuredClone(record), until: now + ttlMs });
    return id;
  }
  async takePendingTool(id: string): Promise<RemoteToolRecord | null> {
    const p = this.pending.get(id);
    this.pending.delete(id);
    return p && p.until > this.now() ? p.record : null;
  }

  async putTool(record: RemoteToolRecord): Promise<{ created: boolean }> {
    const created = !this.tools.has(record.name);
    this.tools.set(record.name, structuredClone(record));
    return { created };
  }
  async getTool(name: string): Promise<RemoteToolRecord | null> {
    const t = this.tools.get(name);
    return t ? structuredClone(t) : null;
  }
  async removeTool(name: string): Promise<boolean> {
    this.discovery.delete(name);
    return this.tools.delete(name);
  }
  async listTools(): Promise<RemoteToolRecord[]> {
    return structuredClone([...this.tools.values()].sort(byKey((t) => t.name)));
  }
  async noteDiscovery(name: string, outcome: DiscoveryOutcome): Promise<void> {
    const status = this.discovery.get(name) ?? { name, last_success: null, last_error: null };
    if ('error' in outcome) status.last_error = { at: outcome.at, kind: outcome.error.kind, message: outcome.error.message };
    else status.last_success = { at: outcome.at, tools: outcome.tools };
    this.discovery.set(name, status);
  }
  async discoveryStatuses(): Promise<DiscoveryStatus[]> {
    return structuredClone([...this.discovery.values()].sort(byKey((d) => d.name)));
  }
}
