import {
  APPROVAL_ACTIONS,
  APPROVAL_APPROVERS,
  APPROVAL_TIMEOUT_ACTIONS,
  DEFAULT_APPROVAL_TIMEOUT_SECONDS,
  DOORS,
  ERROR_KINDS,
  FINGERPRINT_PATTERN,
  KEPT_HEADERS,
  KEPT_HEADERS_MAX,
  KEPT_HEADER_MAX_CHARS,
  NAME_MAX_LENGTH,
  NAME_PATTERN_SOURCE,
  RUN_STATUSES,
} from '@hookyard/core';
import { POLICY_WHEN } from './expressions';

type Schema = Record<string, unknown>;
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const nullable = (s: Schema): Schema => ({ ...s, nullable: true });
const isoTime: Schema = { type: 'string', format: 'date-time' };
const name: Schema = { type: 'string', pattern: NAME_PATTERN_SOURCE, maxLength: NAME_MAX_LENGTH };

/** components.schemas of the management API: the wire shapes the routes answer with. */
export const SCHEMAS: Record<string, Schema> = {
  Name: { ...name, description: 'Hook, topic and tool names: never sanitized; a violation is a 400 naming the field and the pattern' },
  Error: {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['kind', 'message'],
        properties: {
          kind: { type: 'string', enum: [...ERROR_KINDS] },
          message: { type: 'string' },
          details: { type: 'array', items: { type: 'string' }, description: 'One line per miss (e.g. every refused field of a registration)' },
        },
      },
    },
  },
  ApprovalRule: {
    type: 'object',
    required: ['tools', 'action'],
    additionalProperties: false,
    description: 'First matching rule wins; no match allows; a `when` that fails denies (fail closed)',
    properties: {
      name: {
        type: 'string',
        pattern: '^[A-Za-z0-9][A-Za-z0-9 _.:/-]{0,127}$',
        description: 'Named in decisions and history lines; default `deployment rule <n>` / `hook rule <n>`',
      },
      tools: { type: 'array', minItems: 1, items: { type: 'string' }, description: 'Tools the rule covers (allowlist grammar: `*`, names, `!name`)' },
      agents: {
        type: 'array',
        minItems: 1,
        items: { type: 'string' },
        description:
          "Agents whose calls the rule covers (allowlist grammar over agent names); absent: every call. A rule with agents never matches a hook's run",
      },
      when: { type: 'string', description: 'jq; the rule matches when its first output is neither false nor null', 'x-tai42-expression': POLICY_WHEN },
      action: { type: 'string', enum: [...APPROVAL_ACTIONS] },
      message: {
        type: 'string',
        maxLength: 1000,
        description:
          "deny: the sentence the run's result carries (default: ask for clarification or try a less destructive approach); approve: shown to the approver",
      },
      timeout_seconds: {
        type: 'integer',
        minimum: 1,
        maximum: 2592000,
        default: DEFAULT_APPROVAL_TIMEOUT_SECONDS,
        description: 'approve only: how long the approval stays open (absent: HOOKS_APPROVAL_TIMEOUT_SECONDS, default 3600)',
      },
      on_timeout: { type: 'string', enum: [...APPROVAL_TIMEOUT_ACTIONS], default: 'deny', description: 'approve only: what expiry does' },
      answer_hooks: {
        type: 'array',
        items: ref('Name'),
        description: 'approve only: hooks whose resume_expr may answer (their topic needs a verifier binding)',
      },
      approver: {
        type: 'string',
        enum: [...APPROVAL_APPROVERS],
        description:
          "approve only: caller lets the agent's own user (the person at the MCP client) answer through MCP elicitation (form mode), besides operators, signed links and answer hooks; no effect on a hook's run (it has no caller)",
      },
    },
  },
  ApprovalDecision: {
    type: 'object',
    required: ['action', 'rule', 'source', 'policy_version', 'message'],
    properties: {
      action: { type: 'string', enum: [...APPROVAL_ACTIONS] },
      rule: nullable({ type: 'string', description: 'The rule that decided; null when none matched' }),
      source: nullable({ type: 'string', enum: ['deployment', 'hook'] }),
      policy_version: { type: 'integer' },
      message: { type: 'string' },
      timeout_seconds: { type: 'integer' },
      on_timeout: { type: 'string', enum: [...APPROVAL_TIMEOUT_ACTIONS] },
      answer_hooks: { type: 'array', items: { type: 'string' } },
      approver: { type: 'string', enum: [...APPROVAL_APPROVERS] },
      error: ref('ErrorInfo'),
    },
  },
  ErrorInfo: {
    type: 'object',
    required: ['kind', 'message'],
    properties: { kind: { type: 'string', enum: [...ERROR_KINDS] }, message: { type: 'string' } },
  },
  Percentiles: {
    type: 'object',
    required: ['count', 'p50', 'p95', 'p99'],
    additionalProperties: false,
    description: 'Milliseconds; each the upper bound of the log2 bucket holding that rank (null without data)',
    properties: {
      count: { type: 'integer', minimum: 0 },
      p50: { type: 'number', nullable: true },
      p95: { type: 'number', nullable: true },
      p99: { type: 'number', nullable: true },
    },
  },
  StatsSeries: {
    type: 'object',
    required: ['window', 'hook', 'step_seconds', 'from', 'to', 'points', 'hooks', 'top_failing'],
    additionalProperties: false,
    properties: {
      window: { type: 'string', enum: ['1h', '24h'] },
      hook: nullable({ type: 'string' }),
      step_seconds: { type: 'integer', description: '60 for 1h, 900 for 24h' },
      from: isoTime,
      to: isoTime,
      points: {
        type: 'array',
        description: 'One per step, oldest first; the last holds the current minute',
        items: {
          type: 'object',
          required: ['at', 'accepted', 'succeeded', 'failed', 'skipped', 'denied', 'accept_to_start_ms', 'tool_duration_ms'],
          additionalProperties: false,
          properties: {
            at: isoTime,
            ...Object.fromEntries(['accepted', 'succeeded', 'failed', 'skipped', 'denied'].map((k) => [k, { type: 'integer', minimum: 0 }])),
            accept_to_start_ms: ref('Percentiles'),
            tool_duration_ms: ref('Percentiles'),
          },
        },
      },
      hooks: { type: 'array', items: { type: 'string' }, description: 'The hooks counted in the window' },
      top_failing: {
        type: 'array',
        maxItems: 10,
        description: 'Hooks with failed runs in the window, most first',
        items: {
          type: 'object',
          required: ['hook', 'failed', 'succeeded', 'accepted'],
          additionalProperties: false,
          properties: Object.fromEntries(
            ['hook', 'failed', 'succeeded', 'accepted'].map((k) => [k, k === 'hook' ? { type: 'string' } : { type: 'integer', minimum: 0 }]),
          ),
        },
      },
    },
  },
  Run: {
    type: 'object',
    description: 'A kept run: every field, payload included',
    required: ['id', 'hook', 'topic', 'status', 'payload', 'attempts', 'acted', 'error', 'door', 'verified', 'created_at', 'updated_at'],
    properties: {
      id: { type: 'string' },
      event_id: { type: 'string', description: 'The first 24 chars of id, shared by every run of one delivery (GET /api/deliveries/{event_id})' },
      hook: ref('Name'),
      topic: ref('Name'),
      status: { type: 'string', enum: [...RUN_STATUSES] },
      payload: { description: 'The event as kept' },
      headers: nullable({
        type: 'object',
        additionalProperties: { type: 'string' },
        description:
          'The request headers its delivery came with, as the door kept them (the allowlisted, secret-free names of the Delivery schema; every run of one delivery keeps the same); null when none were kept (kept before the doors kept headers, or a replay, platform event or agent call)',
      }),
      attempts: { type: 'integer', minimum: 0 },
      acted: { type: 'string', enum: ['', 'cancel', 'resume', 'take', 'start'] },
      acted_ids: { type: 'array', items: { type: 'string' } },
      claim_intent: { type: 'string' },
      error: nullable({
        type: 'object',
        required: ['kind', 'message', 'retryable'],
        properties: {
          kind: { type: 'string', enum: [...ERROR_KINDS] },
          message: { type: 'string' },
          retryable: {
            type: 'boolean',
            description: 'Whether a later attempt can get past an error of this kind (unavailable, timeout, internal); the others no retry changes',
          },
        },
      }),
      result: { description: 'The tool result (bounded; truncated with a marker past 64 KiB)', nullable: true },
      input: nullable({ type: 'object', additionalProperties: true, description: 'The arguments the tool was started with' }),
      lease: nullable({ type: 'object', properties: { owner: { type: 'string' }, until: isoTime, token: { type: 'integer' } } }),
      due_at: nullable(isoTime),
      delivery_id: nullable({ type: 'string' }),
      agent: nullable({ type: 'string', description: 'door agent: the agent whose call this is (hook is agent:<name>); else null' }),
      door: {
        type: 'string',
        enum: [...DOORS],
        description:
          'The door its event came through: http (the webhook door), nats (an ingest subject), api (a replay), platform (hooks_run_failed, hooks_approval_requested), trigger (a trigger link, never verified), agent (a tool call of an agent: hook is agent:<name>, topic tools/call, the payload is the call). A run kept before doors were recorded reads http',
      },
      verified: {
        type: 'boolean',
        description:
          "True only when a verifier binding checked the event at the HTTP door as it was kept; never for nats, api (a replay does not copy its source's) or platform. Only a verified run of a hook in answer_hooks may answer an approval",
      },
      resumable: { type: 'boolean' },
      interaction: nullable({ type: 'string', description: 'The latest interaction the run parked on (kept after it is resolved)' }),
      parked_on: { type: 'array', items: { type: 'string' }, description: 'The open interactions a parked run waits on; empty otherwise' },
      replay_of: { type: 'string', nullable: true, description: 'The run whose event this run replays (POST /api/hook-runs/{id}/replay); null otherwise' },
      trigger_link: nullable({ type: 'string', description: 'The trigger link whose use kept this run (door trigger: POST /trigger/{token}); null otherwise' }),
      traceparent: nullable({
        type: 'string',
        description: "The W3C traceparent every span of this run continues (the door's request span, when tracing is on); null otherwise",
      }),
      created_at: isoTime,
      updated_at: isoTime,
      started_at: nullable(isoTime),
      finished_at: nullable(isoTime),
      history: {
        type: 'array',
        items: {
          type: 'object',
          required: ['at', 'attempt', 'event'],
          properties: {
            at: isoTime,
            attempt: { type: 'integer' },
            event: { type: 'string' },
            detail: { type: 'string' },
            http: {
              type: 'object',
              description:
                "On the line that ended an HTTP-based tool's attempt (succeeded, failed, retry_scheduled): the reply of its call (the last one under the tool's retry policy)",
              required: ['status', 'headers', 'body', 'body_bytes', 'body_truncated'],
              properties: {
                status: { type: 'integer' },
                headers: {
                  type: 'object',
                  additionalProperties: { type: 'string' },
                  description:
                    'Reply headers by lower-case name (at most 24, values cut at 256 chars); authorization, cookies and token-, key- or secret-like names read [redacted]',
                },
                body: { type: 'string', description: 'The start of the reply body (at most 2 KiB of UTF-8)' },
                body_bytes: { type: 'integer', description: 'The whole body size in bytes' },
                body_truncated: { type: 'boolean' },
              },
            },
            trace_id: { type: 'string', description: "The run's trace id (from traceparent), on every entry of a traced run" },
          },
        },
      },
    },
  },
  RunPage: {
    type: 'object',
    required: ['runs', 'next_cursor'],
    properties: {
      runs: { type: 'array', items: ref('Run') },
      next_cursor: nullable({ type: 'string', description: 'Pass as `cursor` for the next page; null on the last' }),
      scan: {
        type: 'object',
        description: 'With `where` only: how far this request read. cut: the window (scan runs, or 3 s) ended with runs left unread; continue with next_cursor',
        required: ['scanned', 'matched', 'cut', 'errors'],
        properties: {
          scanned: { type: 'integer', minimum: 0, description: 'Runs read and evaluated' },
          matched: { type: 'integer', minimum: 0, description: 'Runs the expression matched (the runs answered)' },
          cut: { type: 'boolean' },
          errors: { type: 'integer', minimum: 0, description: 'Runs on which the expression raised a jq error (they do not match)' },
          first_error: {
            type: 'object',
            required: ['run', 'message'],
            properties: { run: { type: 'string' }, message: { type: 'string' } },
          },
        },
      },
    },
  },
  Delivery: {
    type: 'object',
    description: 'One delivery (event) as it came in and the runs it became, in the order kept',
    required: ['event_id', 'delivery_id', 'door', 'verified', 'topic', 'received_at', 'headers', 'payload', 'runs'],
    properties: {
      event_id: { type: 'string', description: "The first 24 chars of each of its runs' ids (the door's event_id)" },
      delivery_id: nullable({ type: 'string', description: "The sender's delivery id or the topic's dedupe key; null when neither" }),
      door: { type: 'string', enum: [...DOORS] },
      verified: { type: 'boolean', description: 'A verifier binding checked it at the HTTP door' },
      topic: ref('Name'),
      received_at: isoTime,
      headers: nullable({
        type: 'object',
        additionalProperties: { type: 'string' },
        description: `The request headers kept with it (every run of the delivery keeps the same): only the allowlisted names ${KEPT_HEADERS.join(', ')}, at most ${KEPT_HEADERS_MAX}, each value cut to ${KEPT_HEADER_MAX_CHARS} chars; never authorization, cookies, signatures, tokens or keys, even when sent. Kept by the http, nats and trigger doors (an empty object when none of the names came); null for a delivery kept before the doors kept headers or through a door that has none (api: a replay, platform, agent)`,
      }),
      payload: { description: 'The event as kept' },
      runs: {
        type: 'array',
        items: {
          type: 'object',
          required: ['id', 'hook', 'status', 'attempts', 'error', 'acted', 'created_at', 'updated_at', 'finished_at'],
          properties: {
            id: { type: 'string' },
            hook: { type: 'string' },
            status: { type: 'string', enum: [...RUN_STATUSES] },
            attempts: { type: 'integer', minimum: 0 },
            error: nullable({ type: 'object', required: ['kind', 'message'], properties: { kind: { type: 'string' }, message: { type: 'string' } } }),
            acted: { type: 'string' },
            created_at: isoTime,
            updated_at: isoTime,
            finished_at: nullable(isoTime),
          },
        },
      },
    },
  },
  DoorAccepted: {
    type: 'object',
    required: ['status'],
    properties: {
      status: { type: 'string', enum: ['accepted', 'duplicate'] },
      runs: { type: 'integer', minimum: 0, description: 'Runs kept (one per hook on the topic); absent on duplicate' },
      run_ids: { type: 'array', items: { type: 'string' }, description: 'The ids of the runs kept (GET /api/hook-runs/{id}); absent on duplicate' },
      event_id: {
        type: 'string',
        nullable: true,
        description: 'The id every run id of this event starts with; null when nothing was kept; absent on duplicate',
      },
      unrouted: {
        type: 'boolean',
        enum: [true],
        description: 'Present when no hook is registered on the topic (runs: 0): the event is kept under GET /api/unrouted',
      },
      message: { type: 'string', description: 'With unrouted: says no hook is registered on the topic and where the event is kept' },
    },
  },
  RunFilter: {
    type: 'object',
    additionalProperties: false,
    description: 'Runs matching every field given (the query parameters of GET /api/hook-runs)',
    properties: {
      status: { type: 'string', enum: [...RUN_STATUSES] },
      hook: { type: 'string' },
      agent: { type: 'string', description: "an agent's calls (not with hook)" },
      topic: { type: 'string' },
      delivery_id: { type: 'string' },
      since: { type: 'string', description: 'ISO 8601: created at or after' },
      until: { type: 'string', description: 'ISO 8601: created at or before' },
      kind: { type: 'string', enum: [...ERROR_KINDS], description: "the run's error kind" },
      fingerprint: {
        type: 'string',
        pattern: FINGERPRINT_PATTERN.source,
        description:
          "the fingerprint of the run's error message: with status failed, hook (or agent) and kind, exactly one failure group (GET /api/hook-runs/failures)",
      },
    },
  },
  BulkRequest: {
    type: 'object',
    required: ['filter'],
    additionalProperties: false,
    properties: { filter: { $ref: '#/components/schemas/RunFilter' }, dry_run: { type: 'boolean', default: false, description: 'Count only; change nothing' } },
  },
  BulkAnswer: {
    type: 'object',
    required: ['dry_run', 'matched', 'refused', 'refusals', 'truncated'],
    properties: {
      dry_run: { type: 'boolean' },
      matched: { type: 'integer', minimum: 0, description: 'Runs the filter matched (at most 10000 per call)' },
      retried: { type: 'integer', minimum: 0, description: 'Runs retried (bulk retry; 0 on a dry run)' },
      discarded: { type: 'integer', minimum: 0, description: 'Runs discarded (bulk discard; 0 on a dry run)' },
      refused: { type: 'integer', minimum: 0, description: 'Runs the store refused (moved on since listed, or committed a resume/take)' },
      refusals: {
        type: 'array',
        items: { type: 'object', properties: { id: { type: 'string' }, message: { type: 'string' } } },
        description: 'The first 20 refusals',
      },
      truncated: { type: 'boolean', description: 'More runs matched than one call acts on: call again' },
      tool_called_again: {
        type: 'integer',
        minimum: 0,
        description:
          'Bulk retry only (a dry run too): of the matched runs, those whose tool had already started; the retry calls it again, each with its run id as the idempotency key',
      },
    },
  },
  DoorRejected: {
    type: 'object',
    required: ['status', 'error'],
    properties: { status: { type: 'string', enum: ['rejected'] }, error: { type: 'string' } },
  },
  DoorError: {
    type: 'object',
    required: ['error'],
    properties: { error: { type: 'string' } },
  },
};
