import { useEffect, useState } from 'preact/hooks';
import type { AnswerOf, dryRunApprovalPolicy, getApprovalPolicy } from '@hookyard/api';
import { api, ApiError, atLeast, type Role } from '../api';
import { loadHookSchema } from '../schema';
import { ErrorBox, Json, time, toApiError, useLoad } from '../util';
import { RulesEditor } from './rules-editor';

type Policy = AnswerOf<typeof getApprovalPolicy>;
type Rule = Policy['rules'][number];
type DryRunAnswer = AnswerOf<typeof dryRunApprovalPolicy>;

const textOf = (rules: Rule[]) => (rules.length ? JSON.stringify(rules, null, 2) : '');

/** The rules the editor's text holds, or an error naming what is wrong with it. */
function rulesOf(text: string): { rules: Rule[] } | { error: ApiError } {
  if (!text.trim()) return { rules: [] };
  try {
    const v = JSON.parse(text) as unknown;
    if (Array.isArray(v)) return { rules: v as Rule[] };
  } catch {
    // said below
  }
  return { error: new ApiError(400, 'bad_input', 'the rules are not a JSON array of rules: fix the text first') };
}

/**
 * The deployment's approval policy (GET /api/approval-policy): every rule in
 * order for anyone who may read it; an operator can dry-run a call against
 * it; an admin edits it with the rules editor (jq editor for `when`), dry-runs
 * a call against the edited rules before saving, and saves with the version
 * it was loaded at, so a change someone else made meanwhile is a conflict to
 * reload, never overwritten unseen.
 */
export function PolicyPage({ role }: { role: Role }) {
  const policy = useLoad(() => api<Policy>('GET', '/api/approval-policy'), []);
  const admin = atLeast(role, 'admin');
  const schema = useLoad(() => (admin ? loadHookSchema() : Promise.resolve(null)), [admin]);
  // The editor's text and the version it was loaded at (admin only).
  const [draft, setDraft] = useState<{ text: string; version: number; loaded: string } | null>(null);
  const [saveError, setSaveError] = useState<ApiError | null>(null);
  const [conflict, setConflict] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    if (!policy.data) return;
    const text = textOf(policy.data.rules);
    setDraft({ text, version: policy.data.version, loaded: text });
  }, [policy.data]);

  if (policy.error) return <ErrorBox error={policy.error} />;
  if (!policy.data) return <p class="loading">Loading the approval policy…</p>;
  const p = policy.data;

  const reload = () => {
    setConflict(null);
    setSaveError(null);
    setSaved(null);
    policy.reload();
  };

  const save = async (e: Event) => {
    e.preventDefault();
    if (!draft) return;
    const parsed = rulesOf(draft.text);
    if ('error' in parsed) return setSaveError(parsed.error);
    setSaving(true);
    setSaveError(null);
    setSaved(null);
    try {
      const kept = await api<Policy>('PUT', '/api/approval-policy', { rules: parsed.rules, version: draft.version });
      setSaved(`Saved: the policy is now version ${kept.version} with ${kept.rules.length} rule(s).`);
      setConflict(null);
      policy.reload();
    } catch (err) {
      const ae = toApiError(err);
      if (ae.status === 409) setConflict(`Someone else changed the policy since you loaded version ${draft.version}: ${ae.message}`);
      else setSaveError(ae);
    } finally {
      setSaving(false);
    }
  };

  const itemSchema = schema.data ? schema.data.resolve(schema.data.root.properties?.approval?.items ?? {}) : undefined;
  const dirty = draft !== null && draft.text !== draft.loaded;
  // An admin's unsaved edit is what the dry run tries; otherwise the kept policy.
  const edited = admin && dirty ? rulesOf(draft.text) : null;

  return (
    <section aria-labelledby="policy-title">
      <h1 id="policy-title">Approval policy</h1>
      <p data-testid="policy-version">
        Version <strong>{p.version}</strong> · {p.rules.length} rule(s) · updated {time(p.updated_at)}. Rules are read in order on every tool call: the first
        that matches decides (allow, ask for an approval, or deny); no match allows; a <code>when</code> that fails denies. A hook's own rules can only make a
        call stricter.
      </p>
      <RulesTable rules={p.rules} />
      <div class="editor">
        {admin ? (
          <form onSubmit={(e) => void save(e)} class="hook-form" aria-label="Edit the approval policy">
            <h2>Edit</h2>
            <ErrorBox error={schema.error} />
            {draft && itemSchema && schema.data ? (
              <RulesEditor
                id="policy-rules"
                name="rules"
                value={draft.text}
                onChange={(text) => setDraft((d) => (d ? { ...d, text } : d))}
                item={itemSchema}
                resolve={schema.data.resolve}
                lines={saveError?.details.filter((l) => l.startsWith('rules[')) ?? []}
              />
            ) : (
              <p class="loading">Loading the rule schema…</p>
            )}
            {conflict && (
              <div class="error" role="alert" data-testid="policy-conflict">
                <p>{conflict}</p>
                <button type="button" onClick={reload}>
                  Reload the kept policy (your edits are dropped)
                </button>
              </div>
            )}
            <ErrorBox error={saveError} />
            {saved && <p role="status">{saved}</p>}
            <p class="hint">
              {dirty ? `Unsaved changes to version ${draft.version}.` : `No changes to version ${draft?.version ?? p.version}.`} Try a call in the dry run
              before saving.
            </p>
            <button type="submit" disabled={saving || !dirty}>
              Save policy
            </button>
          </form>
        ) : (
          <div />
        )}
        {atLeast(role, 'operator') && <PolicyDryRun rules={edited ? ('error' in edited ? edited.error : edited.rules) : undefined} />}
      </div>
    </section>
  );
}

/** The kept rules, in the order they are read. */
function RulesTable({ rules }: { rules: Rule[] }) {
  if (!rules.length) return <p data-testid="policy-empty">No rules: every call is allowed (the tools allowlists still apply).</p>;
  return (
    <table aria-label="Approval rules">
      <thead>
        <tr>
          <th scope="col">#</th>
          <th scope="col">Name</th>
          <th scope="col">Tools</th>
          <th scope="col">Agents</th>
          <th scope="col">When (jq)</th>
          <th scope="col">Action</th>
          <th scope="col">Details</th>
        </tr>
      </thead>
      <tbody>
        {rules.map((r, i) => (
          <tr key={i} data-rule={i}>
            <td>{i + 1}</td>
            <td>{r.name ?? `deployment rule ${i + 1}`}</td>
            <td>{r.tools.join(', ')}</td>
            <td>{r.agents ? r.agents.join(', ') : 'any call'}</td>
            <td>{r.when ? <code>{r.when}</code> : 'always'}</td>
            <td>
              <span class={`status status-${r.action === 'deny' ? 'denied' : r.action === 'approve' ? 'parked' : 'succeeded'}`}>{r.action}</span>
            </td>
            <td>
              {r.message && <div>“{r.message}”</div>}
              {r.action === 'approve' && (
                <div>
                  {r.timeout_seconds !== undefined ? `open ${r.timeout_seconds} s` : 'open for the default time'}, then {r.on_timeout ?? 'deny'}
                  {r.answer_hooks?.length ? `; answer hooks ${r.answer_hooks.join(', ')}` : ''}
                  {r.approver === 'caller' ? "; the agent's user may answer" : ''}
                </div>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * A call tried against the policy (POST /api/approval-policy/dry-run): the
 * edited rules when given (an admin's unsaved edit), else the kept ones.
 * Nothing is saved.
 */
function PolicyDryRun({ rules }: { rules: Rule[] | ApiError | undefined }) {
  const [kind, setKind] = useState<'hook' | 'agent'>('hook');
  const [who, setWho] = useState('');
  const [tool, setTool] = useState('');
  const [args, setArgs] = useState('{}');
  const [answer, setAnswer] = useState<DryRunAnswer | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);

  const run = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setAnswer(null);
    if (rules instanceof ApiError) return setError(rules);
    let parsed: unknown;
    try {
      parsed = JSON.parse(args || '{}');
    } catch {
      return setError(new ApiError(400, 'bad_input', 'the arguments are not valid JSON'));
    }
    const call: Record<string, unknown> = { [kind]: who.trim(), args: parsed };
    if (tool.trim()) call.tool = tool.trim();
    setBusy(true);
    try {
      setAnswer(await api<DryRunAnswer>('POST', '/api/approval-policy/dry-run', rules ? { rules, call } : { call }));
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <aside class="dry-run" aria-labelledby="policy-dry-run-title">
      <h2 id="policy-dry-run-title">Dry run a call</h2>
      <p class="hint">{rules ? 'Against the edited rules (not saved).' : 'Against the kept policy.'} Nothing is called or kept.</p>
      <form onSubmit={(e) => void run(e)} aria-label="Dry run a call">
        <label for="policy-call-kind">The call is</label>
        <select id="policy-call-kind" value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value as 'hook' | 'agent')}>
          <option value="hook">a hook's run</option>
          <option value="agent">an agent's call</option>
        </select>
        <label for="policy-call-who">{kind === 'hook' ? 'Hook (registered)' : 'Agent'}</label>
        <input id="policy-call-who" type="text" value={who} onInput={(e) => setWho((e.target as HTMLInputElement).value)} />
        <label for="policy-call-tool">Tool{kind === 'hook' ? " (default: the hook's tool)" : ''}</label>
        <input id="policy-call-tool" type="text" value={tool} onInput={(e) => setTool((e.target as HTMLInputElement).value)} />
        <label for="policy-call-args">Arguments (JSON)</label>
        <textarea id="policy-call-args" rows={4} spellcheck={false} value={args} onInput={(e) => setArgs((e.target as HTMLTextAreaElement).value)} />
        <button type="submit" disabled={busy}>
          Dry run
        </button>
      </form>
      <div aria-live="polite" data-testid="policy-dry-run-answer">
        <ErrorBox error={error} />
        {answer && (
          <>
            <p>
              Outcome: <strong data-testid="policy-dry-run-outcome">{answer.outcome}</strong>
            </p>
            <p data-testid="policy-dry-run-summary">{answer.summary}</p>
            <Json value={answer.decision} label="Decision" />
          </>
        )}
      </div>
    </aside>
  );
}
