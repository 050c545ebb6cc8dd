import { useState } from 'preact/hooks';
import { api, atLeast, type Role } from '../api';
import { ErrorBox, Json, useLoad } from '../util';

interface Tool {
  name: string;
  description: string;
  provider: string;
  parameters: unknown;
  retry?: unknown;
  crash_resumable?: boolean;
}

interface ToolRecord {
  name: string;
  kind: string;
  endpoint: string;
  protocol?: string;
  timeout_ms: number;
  updated_at: string;
}

/** Every tool the deployment can call (provider, JSON Schema); an admin also sees the registered services. */
export function ToolsPage({ role }: { role: Role }) {
  const tools = useLoad(() => api<{ tools: Tool[]; registered: ToolRecord[] }>('GET', '/api/tools'), []);
  const [open, setOpen] = useState<string | null>(null);
  const list = tools.data?.tools ?? [];
  return (
    <section aria-labelledby="tools-title">
      <h1 id="tools-title">Tools</h1>
      <ErrorBox error={tools.error} />
      <table>
        <caption class="sr-only">Tools</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Provider</th>
            <th scope="col">Description</th>
            <th scope="col">Schema</th>
          </tr>
        </thead>
        <tbody>
          {list.map((t) => (
            <>
              <tr key={t.name} data-tool={t.name}>
                <td>{t.name}</td>
                <td>{t.provider}</td>
                <td>{t.description}</td>
                <td>
                  <button type="button" class="small" aria-expanded={open === t.name} onClick={() => setOpen(open === t.name ? null : t.name)}>
                    {open === t.name ? 'Hide' : 'Show'} schema
                  </button>
                </td>
              </tr>
              {open === t.name && (
                <tr key={`${t.name}-schema`}>
                  <td colSpan={4}>
                    <Json value={t.parameters} label={`JSON Schema of ${t.name}`} />
                  </td>
                </tr>
              )}
            </>
          ))}
        </tbody>
      </table>
      {atLeast(role, 'admin') && (
        <section aria-labelledby="registry-title">
          <h2 id="registry-title">Registered tool services</h2>
          {(tools.data?.registered ?? []).length === 0 ? (
            <p class="empty">No tool services registered (POST /api/tools).</p>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Endpoint</th>
                  <th scope="col">Tools discovered</th>
                  <th scope="col">Timeout</th>
                </tr>
              </thead>
              <tbody>
                {(tools.data?.registered ?? []).map((r) => (
                  <tr key={r.name} data-service={r.name}>
                    <td>{r.name}</td>
                    <td>{r.kind}{r.protocol ? ` (${r.protocol})` : ''}</td>
                    <td>{r.endpoint}</td>
                    <td>{r.kind === 'http' ? '1 (itself)' : list.filter((t) => t.name.startsWith(`${r.name}__`)).length}</td>
                    <td>{r.timeout_ms} ms</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      )}
    </section>
  );
}
