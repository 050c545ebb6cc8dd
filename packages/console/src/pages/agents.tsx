import { useState } from 'preact/hooks';
import type { AnswerOf, createAgent, listAgents, rotateAgent, updateAgent } from '@hookyard/api';
import { api, ApiError } from '../api';
import { clientConfigs, mcpUrl } from '../connect';
import { href } from '../route';
import { ErrorBox, When, formFields, time, toApiError, useConfirm, useLoad } from '../util';

type Agent = AnswerOf<typeof listAgents>['agents'][number];

/** An IdP identity: the tokens' issuer, and the `sub` and/or `client_id` they must carry. */
interface Identity {
  issuer: string;
  subject?: string;
  client_id?: string;
}

/** A token just made (create or rotate): shown this once. */
interface Issued {
  agent: string;
  token: string;
  how: 'created' | 'rotated';
}

/** The allowlist field: entries split on commas, spaces or lines (`*`, exact tool names, `!name`). */
export function allowlistEntries(text: string): string[] {
  return text.split(/[\s,]+/).filter(Boolean);
}

/**
 * The identities field: one a line, `ISSUER subject=S client_id=C` (fields
 * after the issuer separated by spaces or commas). Only the form is checked
 * here; a line that is not of it is a usage error naming it, and the API says
 * what an identity needs (a subject or a client_id).
 */
export function identityEntries(text: string): Identity[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((line) => {
      const [issuer = '', ...fields] = line.split(/[\s,]+/);
      const out: Identity = { issuer };
      for (const f of fields) {
        const eq = f.indexOf('=');
        const [key, value] = [f.slice(0, eq), f.slice(eq + 1)];
        if (eq < 1 || value === '' || (key !== 'subject' && key !== 'client_id'))
          throw new ApiError(0, 'usage', `IdP identity "${line}": "${f}" is not subject=S or client_id=C (e.g. https://idp.example.com subject=alice)`);
        out[key] = value;
      }
      return out;
    });
}

/** One identity as a line: the issuer, then the subject and client id it needs. */
export function identityText(i: Identity): string {
  return [i.issuer, ...(i.subject !== undefined ? [`subject=${i.subject}`] : []), ...(i.client_id !== undefined ? [`client_id=${i.client_id}`] : [])].join(' ');
}

/**
 * Admin: the agent clients. Each has its own token (reaching only the agent
 * door, never the management API), its own tool allowlist and the IdP
 * identities that may act as it. Creating or rotating shows the token once
 * (with the client configurations filled in); Edit changes the description and
 * allowlist (the token stays); Connect shows the configurations with a
 * placeholder for the token; revoking refuses the agent at once. Each row
 * says when the agent last called and what its calls did in the last 24 hours.
 */
export function AgentsPage() {
  const agents = useLoad(() => api<AnswerOf<typeof listAgents>>('GET', '/api/agents'), []);
  const [confirm, dialog] = useConfirm();
  const [error, setError] = useState<ApiError | null>(null);
  const [issued, setIssued] = useState<Issued | null>(null);
  const [busy, setBusy] = useState(false);
  // The form's fields are the browser's until submitted; the key clears them after a create.
  const [formKey, setFormKey] = useState(0);
  const [editing, setEditing] = useState<string | null>(null);
  const [connecting, setConnecting] = useState<string | null>(null);

  const act = async (what: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await what();
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setBusy(false);
      agents.reload();
    }
  };

  const create = (e: Event) => {
    e.preventDefault();
    const text = formFields(e.target as HTMLFormElement);
    const field = (k: string) => text(k).trim();
    const body: Record<string, unknown> = { name: field('name'), tools_allow: allowlistEntries(field('tools_allow')) };
    if (field('description')) body.description = field('description');
    void act(async () => {
      setIssued(null);
      const identities = identityEntries(text('identities'));
      if (identities.length) body.identities = identities;
      const res = await api<AnswerOf<typeof createAgent>>('POST', '/api/agents', body);
      setIssued({ agent: res.agent.name, token: res.token, how: 'created' });
      setFormKey((k) => k + 1);
    });
  };

  const rotate = async (name: string) => {
    if (!(await confirm(`Rotate the token of agent ${name}? Its current token is refused from now on.`, 'Rotate'))) return;
    await act(async () => {
      setIssued(null);
      const res = await api<AnswerOf<typeof rotateAgent>>('POST', `/api/agents/${encodeURIComponent(name)}/rotate`);
      setIssued({ agent: res.agent.name, token: res.token, how: 'rotated' });
    });
  };

  const save = (name: string) => (e: Event) => {
    e.preventDefault();
    const text = formFields(e.target as HTMLFormElement);
    const description = text('description').trim();
    const body = { description: description === '' ? null : description, tools_allow: allowlistEntries(text('tools_allow')) };
    void act(async () => {
      await api<AnswerOf<typeof updateAgent>>('PATCH', `/api/agents/${encodeURIComponent(name)}`, body);
      setEditing(null);
    });
  };

  const revoke = async (name: string) => {
    if (!(await confirm(`Revoke agent ${name}? Its token is refused at once and its open sessions close; its kept calls stay readable.`, 'Revoke'))) return;
    await act(async () => {
      await api('DELETE', `/api/agents/${encodeURIComponent(name)}`);
      if (issued?.agent === name) setIssued(null);
    });
  };

  const list = agents.data?.agents ?? [];
  return (
    <section aria-labelledby="agents-title">
      <h1 id="agents-title">Agents</h1>
      <p class="hint">
        An agent calls tools through the agent door (MCP at <code>/mcp</code>, or <code>POST /api/calls</code>) with its own token, never the management API. It
        sees and calls only the tools its allowlist, the deployment's and the caller's own narrower list all allow; every call is a run.
      </p>
      {/* The API checks each field and names a bad one in its 400, shown below. */}
      <form key={formKey} class="agent-form" onSubmit={create} aria-label="Create an agent">
        <label>
          Name
          <input name="name" required autoComplete="off" spellcheck={false} />
        </label>
        <label>
          Description
          <input name="description" autoComplete="off" />
        </label>
        <label>
          Allowed tools
          <input name="tools_allow" required autoComplete="off" spellcheck={false} placeholder="deploy, notify  or  *, !drop_table" />
        </label>
        <label>
          IdP identities (optional)
          <textarea name="identities" rows={2} autoComplete="off" spellcheck={false} placeholder="https://idp.example.com subject=alice" />
        </label>
        <button type="submit" disabled={busy}>
          Create agent
        </button>
      </form>
      <p class="hint">
        Allowed tools: comma- or space-separated entries: <code>*</code> (every tool), exact tool names, <code>!name</code> to leave one out. IdP identities:
        one a line, an issuer from <code>HOOKS_OIDC_ISSUER</code> and the <code>subject=</code> (the token's <code>sub</code>) and/or <code>client_id=</code>{' '}
        (its <code>client_id</code> or <code>azp</code>) an access token must carry to act as this agent.
      </p>
      {issued && <IssuedToken issued={issued} onDone={() => setIssued(null)} />}
      <ErrorBox error={agents.error ?? error} />
      {editing && list.some((a) => a.name === editing) && (
        <EditAgent
          key={editing}
          agent={list.find((a) => a.name === editing)!}
          busy={busy}
          onSave={save(editing)}
          onCancel={() => {
            setEditing(null);
            setError(null);
          }}
        />
      )}
      {connecting && !issued && <ConnectPanel name={connecting} token={null} onClose={() => setConnecting(null)} />}
      <table class="agents" aria-busy={agents.loading}>
        <caption class="sr-only">Agents</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Description</th>
            <th scope="col">Allowed tools</th>
            <th scope="col">Token id</th>
            <th scope="col">IdP identities</th>
            <th scope="col">Last used</th>
            <th scope="col">Last 24 h</th>
            <th scope="col">Updated</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {list.map((a) => (
            <tr key={a.name} data-agent={a.name}>
              <td>
                <strong>{a.name}</strong> <a href={href('/runs', { agent: a.name })}>calls</a>
              </td>
              <td>{a.description ?? ''}</td>
              <td>
                {a.tools_allow.map((t) => (
                  <code key={t} class="allow-entry">
                    {t}
                  </code>
                ))}
              </td>
              <td>
                <code>{a.token_id}</code>
              </td>
              <td>
                {(a.identities ?? []).map((i) => (
                  <code key={identityText(i)} class="identity-entry">
                    {identityText(i)}
                  </code>
                ))}
              </td>
              <td data-testid="agent-last-used">{a.usage && (a.usage.last_used_at ? <When iso={a.usage.last_used_at} relative /> : 'no call kept')}</td>
              <td data-testid="agent-usage">
                <Usage agent={a} />
              </td>
              <td title={`created ${time(a.created_at)}`}>{time(a.updated_at)}</td>
              <td class="row-actions">
                <button type="button" class="small" disabled={busy} onClick={() => setEditing(a.name)} aria-label={`Edit ${a.name}`}>
                  Edit
                </button>
                <button type="button" class="small" onClick={() => setConnecting(a.name)} aria-label={`Connect a client as ${a.name}`}>
                  Connect
                </button>
                <button type="button" class="small" disabled={busy} onClick={() => void rotate(a.name)} aria-label={`Rotate the token of ${a.name}`}>
                  Rotate
                </button>
                <button type="button" class="danger small" disabled={busy} onClick={() => void revoke(a.name)} aria-label={`Revoke ${a.name}`}>
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {!agents.loading && !agents.error && list.length === 0 && <p class="empty">No agents yet.</p>}
      {dialog}
    </section>
  );
}

/** The token just made, with a copy button: Hookyard keeps only its hash, so this is the one time it can be read. */
function IssuedToken({ issued, onDone }: { issued: Issued; onDone: () => void }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  const copy = async () => {
    try {
      // Absent outside a secure context (plain http to a remote host): then the operator selects the text.
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(issued.token);
      setCopied('yes');
    } catch {
      setCopied('no');
    }
  };
  return (
    <div class="issued" role="status" data-issued={issued.agent}>
      <p>
        Token of agent <strong>{issued.agent}</strong> ({issued.how}): <code data-testid="agent-token">{issued.token}</code>{' '}
        <button type="button" class="small" onClick={() => void copy()}>
          Copy
        </button>{' '}
        <span aria-live="polite">{copied === 'yes' ? 'Copied.' : copied === 'no' ? 'Copying is not available here: select the token and copy it.' : ''}</span>
      </p>
      <p>
        <strong>This token is shown only now.</strong> Hookyard keeps only its hash: copy it into the agent's configuration before leaving this page
        {issued.how === 'rotated' ? '; the previous token is already refused' : ''}.
      </p>
      <ConnectPanel name={issued.agent} token={issued.token} />
      <button type="button" class="small" onClick={onDone}>
        I have copied it
      </button>
    </div>
  );
}

/** An agent's calls of the last 24 hours, each count a link to those runs where the runs page can filter them. */
function Usage({ agent }: { agent: Agent }) {
  const u = agent.usage;
  if (!u) return null;
  const runs = (status?: string) => href('/runs', { agent: agent.name, ...(status ? { status } : {}) });
  return (
    <span class="usage">
      <a href={runs()}>{u.calls} calls</a> · <a href={runs('denied')}>{u.denied} denied</a> · {u.approvals} approvals ·{' '}
      <a href={runs('failed')}>{u.failed} failed</a>
    </span>
  );
}

/** The edit form of one agent: its description and allowlist (the name, token and identities stay). */
function EditAgent({ agent, busy, onSave, onCancel }: { agent: Agent; busy: boolean; onSave: (e: Event) => void; onCancel: () => void }) {
  return (
    <form class="agent-form" onSubmit={onSave} aria-label={`Edit agent ${agent.name}`} data-editing={agent.name}>
      <h2>Edit {agent.name}</h2>
      <label>
        Description
        <input name="description" autoComplete="off" defaultValue={agent.description ?? ''} />
      </label>
      <label>
        Allowed tools
        <input name="tools_allow" required autoComplete="off" spellcheck={false} defaultValue={agent.tools_allow.join(', ')} />
      </label>
      <p class="hint">The token stays. The new allowlist holds from the agent's next request; its open MCP sessions are told to list the tools again.</p>
      <button type="submit" disabled={busy}>
        Save
      </button>{' '}
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </form>
  );
}

/**
 * "Connect a client": the configurations of Claude Code, VS Code, Cursor and
 * stdio-only hosts (mcp-remote) for this agent, the door's URL from the page's
 * origin. The token is filled in only right after it was made or rotated;
 * otherwise a placeholder stands where it goes.
 */
export function ConnectPanel({ name, token, onClose }: { name: string; token: string | null; onClose?: () => void }) {
  const configs = clientConfigs(name, mcpUrl(window.location.origin), token);
  return (
    <section class="connect" aria-label={`Connect a client as ${name}`} data-connect={name}>
      <h2>Connect a client as {name}</h2>
      <p class="hint">
        {token
          ? 'The token is filled in below: this is the one time it is shown.'
          : "Tokens are shown only when made or rotated: put the agent's token where <agent token> stands (or rotate it to get a new one)."}
      </p>
      {configs.map((c) => (
        <div key={c.id} class="connect-config">
          <h3>
            {c.title} <span class="hint">— {c.where}</span>
          </h3>
          <pre data-testid={`connect-${c.id}`}>{c.text}</pre>
        </div>
      ))}
      {onClose && (
        <button type="button" class="small" onClick={onClose}>
          Close
        </button>
      )}
    </section>
  );
}
