import { useState } from 'preact/hooks';
import type { AnswerOf, listTools } from '@hookyard/api';
import { api, atLeast, type Role } from '../api';
import { ErrorBox, Json, useLoad } from '../util';

/** The listing GET /api/tools answers without ?format. */
type ToolsAnswer = Extract<AnswerOf<typeof listTools>, { registered: unknown }>;
/** What the executors' last discoveries of a provider registration (openapi, mcp, grpc) found. */
type DiscoveryStatus = ToolsAnswer['discovery'][number];

function LastSuccess({ d }: { d: DiscoveryStatus | undefined }) {
  if (!d) return <>—</>;
  return d.last_success ? (
    <>
      {d.last_success.at} ({d.last_success.tools} tools)
    </>
  ) : (
    <>never</>
  );
}

function LastError({ d }: { d: DiscoveryStatus | undefined }) {
  if (!d?.last_error) return <>none</>;
  return (
    <span class="discovery-error">
      {d.last_error.at} {d.last_error.kind}: {d.last_error.message}
    </span>
  );
}

/**
 * Every tool the deployment can call (provider, JSON Schema), and each provider
 * registration's last discovery and last discovery error; an admin also sees the
 * registered services.
 */
export function ToolsPage({ role }: { role: Role }) {
  const tools = useLoad(() => api<ToolsAnswer>('GET', '/api/tools'), []);
  const discovery = tools.data?.discovery ?? [];
  const statusOf = (name: string) => discovery.find((d) => d.name === name);
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
      {!atLeast(role, 'admin') && discovery.length > 0 && (
        <section aria-labelledby="discovery-title">
          <h2 id="discovery-title">Discovery of registered services</h2>
          <table>
            <thead>
              <tr>
                <th scope="col">Registration</th>
                <th scope="col">Last discovery</th>
                <th scope="col">Last discovery error</th>
              </tr>
            </thead>
            <tbody>
              {discovery.map((d) => (
                <tr key={d.name} data-discovery={d.name}>
                  <td>{d.name}</td>
                  <td>
                    <LastSuccess d={d} />
                  </td>
                  <td>
                    <LastError d={d} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
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
                  <th scope="col">Last discovery</th>
                  <th scope="col">Last discovery error</th>
                  <th scope="col">Timeout</th>
                </tr>
              </thead>
              <tbody>
                {(tools.data?.registered ?? []).map((r) => (
                  <tr key={r.name} data-service={r.name}>
                    <td>{r.name}</td>
                    <td>
                      {r.kind}
                      {r.protocol ? ` (${r.protocol})` : ''}
                    </td>
                    <td>{r.endpoint}</td>
                    <td>{r.kind === 'http' ? '1 (itself)' : list.filter((t) => t.name.startsWith(`${r.name}__`)).length}</td>
                    <td>{r.kind === 'http' ? '—' : <LastSuccess d={statusOf(r.name)} />}</td>
                    <td>{r.kind === 'http' ? '—' : <LastError d={statusOf(r.name)} />}</td>
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
