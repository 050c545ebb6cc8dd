import {
  APPROVAL_ACTIONS,
  APPROVAL_APPROVERS,
  APPROVAL_TIMEOUT_ACTIONS,
  DEFAULT_APPROVAL_TIMEOUT_SECONDS,
  DOORS,
  ERROR_KINDS,
  FINGERPRINT_PATTERN,
  INTERACTION_KINDS,
  INTERACTION_STATUSES,
  JQ_FIELDS,
  KEPT_HEADERS,
  KEPT_HEADERS_MAX,
  KEPT_HEADER_MAX_CHARS,
  NAME_MAX_LENGTH,
  NAME_PATTERN_SOURCE,
  REMOTE_PROTOCOLS,
  RESOLUTION_VIAS,
  RUN_STATUSES,
  STATE_TEMPLATE_NAMES,
} from '@hookyard/core';
import { EXPRESSIONS, POLICY_WHEN } from './expressions';

type Schema = Record<string, unknown>;
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const nullable = (s: Schema): Schema => ({ ...s, nullable: true });
const isoTime: Schema = { type: 'string', format: 'date-time' };
const name: Schema = { type: 'string', pattern: NAME_PATTERN_SOURCE, maxLength: NAME_MAX_LENGTH };
const NATS_TRUST: Schema = {
  type: 'string',
  enum: ['trusted'],
  description:
    'trusted: the NATS door keeps messages on this topic (who may publish is up to NATS permissions; such runs are not verified). Absent: the NATS door refuses them',
};

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
  JqField: {
    description: 'A jq expression: inline, or a stored template with its $kwargs',
    oneOf: [
      { type: 'object', required: ['content'], properties: { content: { type: 'string' } }, additionalProperties: false },
      {
        type: 'object',
        required: ['id'],
        properties: { id: { type: 'string' }, kwargs: { type: 'object', additionalProperties: true } },
        additionalProperties: false,
      },
    ],
  },
  HookInput: {
    type: 'object',
    required: ['name', 'topic', 'tool'],
    additionalProperties: false,
    properties: {
      name: ref('Name'),
      topic: ref('Name'),
      tool: { type: 'string', description: 'A registered tool (GET /api/tools)' },
      tool_kwargs: { type: 'object', additionalProperties: true, description: "Static arguments, validated against the tool's JSON Schema" },
      ...Object.fromEntries(JQ_FIELDS.map((f) => [f, { allOf: [ref('JqField')], 'x-tai42-expression': EXPRESSIONS[f] }])),
      subject: {
        type: 'object',
        required: ['scope', 'kind'],
        additionalProperties: false,
        description:
          'Binds a declared state (GET /api/states/declarations). key_expr is required unless templates names the declared key_expr. ' +
          'Checked at registration: an undeclared state is 404, an attach path another binding overlaps 409, a states-store failure 500; none stores the hook',
        properties: {
          scope: { type: 'string' },
          kind: { type: 'string' },
          key_expr: { allOf: [ref('JqField')], 'x-tai42-expression': EXPRESSIONS['subject.key_expr'] },
          attach: {
            type: 'string',
            description:
              'The part of the document this hook writes (a JSON pointer, "" for all of it), held against every other binding. ' +
              'Absent: the whole document, shared with other hooks without attach (a state never declared is then declared open)',
          },
          templates: {
            type: 'array',
            items: { type: 'string', enum: [...STATE_TEMPLATE_NAMES] },
            description: "The declaration's templates to attach: key_expr fills subject.key_expr, the others the hook's field of that name",
          },
          declaration_version: { type: 'integer', description: 'Ignored on input: the declaration version the attached templates came from' },
        },
      },
      approval: {
        type: 'array',
        items: ref('ApprovalRule'),
        description: "The hook's own approval rules: they can only make a call stricter than the deployment policy (allow -> approve/deny, approve -> deny)",
      },
      tools_allow: { type: 'array', items: { type: 'string' }, description: 'Allowlist (`*`, names, `!name`), intersected with HOOKS_TOOLS_ALLOW' },
      description: { type: 'string' },
      created_at: { ...isoTime, description: 'Ignored on input (echoed by GET)' },
      updated_at: { ...isoTime, description: 'Ignored on input (echoed by GET)' },
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
  ApprovalPolicy: {
    type: 'object',
    required: ['version', 'rules', 'updated_at'],
    properties: {
      version: { type: 'integer', minimum: 0, description: 'Bumped by every PUT; 0 when never set' },
      rules: { type: 'array', items: ref('ApprovalRule') },
      updated_at: nullable(isoTime),
    },
  },
  ApprovalPolicyInput: {
    type: 'object',
    required: ['rules'],
    additionalProperties: false,
    properties: {
      rules: { type: 'array', items: ref('ApprovalRule'), description: 'Replaces the rules whole; [] allows every call' },
      version: { type: 'integer', minimum: 0, description: 'Optional: apply only if this is still the kept version (409 otherwise)' },
      updated_at: { ...isoTime, description: 'Ignored on input (echoed by GET)' },
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
  PolicyDryRunInput: {
    type: 'object',
    required: ['call'],
    additionalProperties: false,
    properties: {
      rules: { type: 'array', items: ref('ApprovalRule'), description: 'The candidate rules (absent: the kept policy)' },
      call: {
        type: 'object',
        additionalProperties: false,
        description: 'Exactly one of hook and agent',
        properties: {
          hook: { type: 'string', description: 'A registered hook: the call is its run (its topic and own approval rules apply)' },
          agent: { type: 'string', description: "An agent's name: the call is that agent's (topic tools/call, no subject)" },
          tool: { type: 'string', description: "The tool called; default the hook's tool" },
          args: { type: 'object', additionalProperties: true, description: "The tool's arguments (`.args` in a rule's `when`)" },
          subject: nullable({
            type: 'object',
            required: ['scope', 'kind', 'key'],
            additionalProperties: false,
            properties: { scope: { type: 'string' }, kind: { type: 'string' }, key: { type: 'string' } },
          }),
        },
      },
    },
  },
  PolicyDryRun: {
    type: 'object',
    required: ['outcome', 'decision', 'call', 'rules_from', 'hook_rules', 'summary'],
    properties: {
      outcome: { type: 'string', enum: ['allow', 'approval', 'deny'] },
      decision: ref('ApprovalDecision'),
      call: {
        type: 'object',
        description: "The document the rules' `when` read: {tool, args, hook, topic, subject, agent}",
        additionalProperties: true,
      },
      rules_from: { type: 'string', enum: ['body', 'kept'] },
      hook_rules: { type: 'integer', description: "How many of the hook's own rules applied" },
      summary: { type: 'string', description: 'What would happen, in one sentence' },
    },
  },
  ApprovalAnswerInput: {
    type: 'object',
    additionalProperties: false,
    properties: { reason: { type: 'string', maxLength: 1000, description: "Kept on the interaction's resolution and in the run's result" } },
  },
  ApprovalAnswer: {
    type: 'object',
    required: ['interaction', 'run'],
    properties: { interaction: ref('Interaction'), run: nullable(ref('Run')) },
  },
  DryRunInput: {
    type: 'object',
    required: ['hook'],
    additionalProperties: false,
    properties: {
      hook: { description: 'A registered hook name, or a hook record (validated, not stored)', oneOf: [ref('Name'), ref('HookInput')] },
      payload: { description: 'The event payload the run would have (default {})' },
    },
  },
  DryRun: {
    type: 'object',
    required: [
      'hook',
      'tool',
      'outcome',
      'subject',
      'parked',
      'state',
      'condition',
      'cancel',
      'resume',
      'act',
      'kwargs',
      'extras',
      'allowlist',
      'approval',
      'error',
      'warnings',
    ],
    properties: {
      hook: { type: 'string' },
      tool: { type: 'string' },
      outcome: {
        type: 'string',
        enum: ['skipped', 'act', 'start', 'denied', 'approval', 'refused', 'error'],
        description:
          'What the run would do: skip, act on interactions (no tool call), start the tool, be denied, park for an approval, be refused by the allowlist, fail',
      },
      subject: nullable({ type: 'object', properties: { scope: { type: 'string' }, kind: { type: 'string' }, key: { type: 'string' } } }),
      parked: { type: 'array', items: {}, description: 'The $parked the expressions saw' },
      state: { description: "The $state the expressions saw: the subject's state document, or null" },
      condition: nullable({ type: 'object', properties: { present: { type: 'boolean' }, output: { type: 'array', items: {} }, matched: { type: 'boolean' } } }),
      cancel: nullable({ type: 'array', items: {}, description: 'cancel_expr outputs' }),
      resume: nullable({ type: 'array', items: {}, description: 'resume_expr outputs' }),
      act: nullable({
        type: 'object',
        description: 'What the door contract would do: {verb: cancel, ids} | {verb: resume, items: [{id, payload}]} | {verb: take, id}',
        additionalProperties: true,
      }),
      kwargs: nullable({ type: 'object', additionalProperties: true, description: 'The arguments the tool would get' }),
      extras: nullable({
        type: 'object',
        additionalProperties: true,
        description: 'The extras the tool would get (the idempotency key stands as "<run id>"); with an act, the extras handed on',
      }),
      allowlist: nullable({ type: 'object', properties: { allowed: { type: 'boolean' }, list: { type: 'string' } } }),
      approval: nullable(ref('ApprovalDecision')),
      error: nullable({
        type: 'object',
        required: ['step', 'kind', 'message'],
        properties: { step: { type: 'string' }, kind: { type: 'string', enum: [...ERROR_KINDS] }, message: { type: 'string' } },
      }),
      warnings: {
        type: 'array',
        items: { type: 'string' },
        description: 'What looks like a mistake though the run would go on (a condition whose output is not one boolean)',
      },
    },
  },
  ErrorInfo: {
    type: 'object',
    required: ['kind', 'message'],
    properties: { kind: { type: 'string', enum: [...ERROR_KINDS] }, message: { type: 'string' } },
  },
  Hook: {
    allOf: [ref('HookInput'), { type: 'object', required: ['tool_kwargs', 'created_at', 'updated_at'] }],
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
  Interaction: {
    type: 'object',
    description: "What a parked run waits on. Resolved once; a resumed one keeps its run's outcome until a later run takes it.",
    required: ['id', 'kind', 'run', 'hook', 'topic', 'tool', 'args_hash', 'status', 'created_at', 'expires_at'],
    properties: {
      id: { type: 'string', description: '10 chars of time, 128 random bits (hex), 2 chars of store partition' },
      kind: { type: 'string', enum: [...INTERACTION_KINDS] },
      run: { type: 'string', description: 'The parked run' },
      hook: ref('Name'),
      topic: ref('Name'),
      tool: { type: 'string' },
      args_hash: { type: 'string', description: 'SHA-256 (hex) of the canonical JSON of the exact arguments' },
      rule: nullable({ type: 'string' }),
      policy_version: nullable({ type: 'integer' }),
      answer_hooks: { type: 'array', items: ref('Name'), description: 'approval: the hooks whose door contract may answer it' },
      approver: nullable({
        type: 'string',
        enum: [...APPROVAL_APPROVERS],
        description: "approval: caller when the agent's own user may answer it through MCP elicitation (its rule's approver)",
      }),
      subject: nullable({
        type: 'object',
        required: ['scope', 'kind', 'key'],
        properties: { scope: { type: 'string' }, kind: { type: 'string' }, key: { type: 'string' } },
      }),
      on_timeout: nullable({ type: 'string', description: 'wait: fail | succeed; approval: deny | allow' }),
      created_at: isoTime,
      expires_at: isoTime,
      status: { type: 'string', enum: [...INTERACTION_STATUSES] },
      resolution: nullable({
        type: 'object',
        required: ['by', 'via', 'at'],
        properties: {
          by: { type: 'string' },
          via: { type: 'string', enum: [...RESOLUTION_VIAS] },
          at: isoTime,
          reason: { type: 'string' },
          payload: { nullable: true, description: 'The resume payload' },
          extras: nullable({ type: 'object', additionalProperties: true, description: "The answering run's extras_expr, handed on" }),
        },
      }),
      outcome: nullable({ type: 'object', properties: { run: { type: 'string' }, status: { type: 'string' }, result: { nullable: true }, at: isoTime } }),
      taken: nullable({ type: 'object', properties: { by: { type: 'string' }, at: isoTime } }),
      links: nullable({
        type: 'object',
        description:
          'GET /api/interactions/{id} to an operator or admin only (a reader gets no links field): fresh signed links of an open approval, issued to the calling token (`by`, signed) and recorded in the audit trail (`interaction.links_issued`); null when links are off (HOOKS_PUBLIC_URL, HOOKS_APPROVAL_LINK_SECRET) or it is not open',
        required: ['approve_url', 'deny_url', 'expires_at'],
        properties: {
          approve_url: { type: 'string' },
          deny_url: { type: 'string' },
          expires_at: { ...isoTime, description: 'When the links stop working: min(now + HOOKS_APPROVAL_LINK_TTL_SECONDS, the approval expires_at)' },
        },
      }),
    },
  },
  InteractionPage: {
    type: 'object',
    required: ['interactions', 'next_cursor'],
    properties: {
      interactions: { type: 'array', items: ref('Interaction') },
      next_cursor: nullable({ type: 'string', description: 'Pass as `cursor` for the next page; null on the last' }),
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
  Tool: {
    type: 'object',
    required: ['name', 'description', 'provider', 'parameters'],
    properties: {
      name: { type: 'string' },
      description: { type: 'string' },
      provider: { type: 'string', description: 'local, http, openapi, mcp, grpc, …' },
      parameters: { type: 'object', additionalProperties: true, description: 'JSON Schema of the arguments' },
      retry: ref('ToolRetryPolicy'),
      crash_resumable: { type: 'boolean' },
      record: ref('ToolRecord'),
      tools: {
        type: 'array',
        items: { type: 'object', additionalProperties: true },
        description: 'a provider registration (openapi, mcp, grpc): the tools it provides',
      },
      discovery: ref('DiscoveryStatus'),
    },
  },
  DiscoveryStatus: {
    type: 'object',
    required: ['name', 'last_success', 'last_error'],
    description: "What the executors' last discoveries of a provider registration found (null: none yet)",
    properties: {
      name: { type: 'string' },
      last_success: nullable({
        type: 'object',
        required: ['at', 'tools'],
        properties: { at: { type: 'string', format: 'date-time' }, tools: { type: 'integer', minimum: 0, description: 'tools it exposed' } },
      }),
      last_error: nullable({
        type: 'object',
        required: ['at', 'kind', 'message'],
        properties: { at: { type: 'string', format: 'date-time' }, kind: { type: 'string' }, message: { type: 'string' } },
      }),
    },
  },
  ToolRetryPolicy: {
    type: 'object',
    required: ['max_attempts', 'base_ms', 'cap_ms', 'kinds'],
    properties: {
      max_attempts: { type: 'integer' },
      base_ms: { type: 'integer' },
      cap_ms: { type: 'integer' },
      kinds: { type: 'array', items: { type: 'string' } },
    },
  },
  ToolRecordInput: {
    type: 'object',
    description:
      'A tool service: kind http (five wire protocols; protocol required), openapi (operations from {endpoint}/openapi.json), ' +
      'mcp (an MCP server over stdio, sse or streamable-http) or grpc (unary methods by reflection or a .proto). Unknown fields, ' +
      'and fields of another kind, are refused',
    required: ['name'],
    properties: {
      name: ref('Name'),
      kind: { type: 'string', enum: ['http', 'openapi', 'mcp', 'grpc'], default: 'http' },
      endpoint: { type: 'string', description: 'http(s) URL; grpc:// or grpcs:// for grpc; absent for an mcp stdio server' },
      method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], default: 'POST', description: 'http only' },
      timeout_ms: { type: 'integer', minimum: 1, default: 30000 },
      headers: {
        type: 'object',
        additionalProperties: ref('StringOrSecret'),
        description:
          'http, openapi, mcp (sse, streamable-http): sent with every request. A value is a literal or a secret reference; ' +
          'a literal for a credential-looking name (authorization, proxy-authorization, cookie, or containing key, token, secret, password, auth) is refused',
      },
      body_properties: { type: 'object', additionalProperties: true, description: 'http only: merged first into every request body; call arguments win' },
      protocol: { type: 'string', enum: [...REMOTE_PROTOCOLS, 'langserve'], description: 'http only, required there' },
      injected: {
        type: 'object',
        additionalProperties: true,
        description:
          'openapi, mcp, grpc: arguments the runtime applies, hidden from the schema. A value is any JSON value or a secret reference ' +
          '(an object whose only field is `secret` is always one); a credential-looking name takes a reference only',
      },
      operations: { type: 'array', items: { type: 'string' }, description: 'openapi, mcp, grpc: the operations, tools or methods to expose' },
      transport: { type: 'string', enum: ['stdio', 'sse', 'streamable-http'], description: 'mcp only' },
      command: { type: 'string', description: 'mcp stdio: a command listed in HOOKS_MCP_STDIO_ALLOW' },
      args: { type: 'array', items: { type: 'string' }, description: 'mcp stdio: its arguments' },
      proto: { type: 'string', description: 'grpc: a .proto file instead of server reflection' },
      services: { type: 'array', items: { type: 'string' }, description: 'grpc: fully-qualified services to expose' },
      metadata: {
        type: 'object',
        additionalProperties: ref('StringOrSecret'),
        description: 'grpc: text metadata sent with every call; a literal or a secret reference (a credential-looking key takes a reference only)',
      },
      description: { type: 'string' },
      retry: ref('ToolRetryPolicy'),
      crash_resumable: { type: 'boolean' },
    },
  },
  SecretRef: {
    type: 'object',
    required: ['secret'],
    additionalProperties: false,
    description: 'A secret, referenced: resolved by the process that uses it, when it uses it; never stored or echoed',
    properties: {
      secret: {
        type: 'string',
        pattern: '^(env:[A-Za-z_][A-Za-z0-9_]{0,127}|file:/.+)$',
        description: 'env:NAME (an environment variable) or file:/path (a mounted file)',
        example: 'env:TICKETS_API_KEY',
      },
    },
  },
  StringOrSecret: {
    description: 'A literal string, or a secret reference {"secret": "env:NAME"}',
    oneOf: [{ type: 'string' }, ref('SecretRef')],
  },
  ToolRecord: {
    description: 'A registered tool service as kept: secrets appear as references only',
    allOf: [
      ref('ToolRecordInput'),
      { type: 'object', required: ['kind', 'timeout_ms', 'created_at', 'updated_at'], properties: { created_at: isoTime, updated_at: isoTime } },
    ],
  },
  VerifierInput: {
    type: 'object',
    required: ['kind'],
    properties: {
      kind: { type: 'string', enum: ['shared_secret', 'hmac', 'github', 'stripe', 'slack', 'standard-webhooks'] },
      secret: { type: 'string', description: 'One secret reference: env:NAME or file:/path (never a literal secret)' },
      secrets: { type: 'array', items: { type: 'string' }, description: 'Several references, during rotation' },
      settings: { type: 'object', additionalProperties: true, description: 'Kind-specific: header names, algorithm, encoding, prefix, tolerance_seconds, …' },
      nats: NATS_TRUST,
      topic: { ...name, description: 'Optional; must equal the path topic' },
    },
  },
  Verifier: {
    type: 'object',
    required: ['topic', 'kind', 'settings', 'secrets', 'created_at', 'updated_at'],
    properties: {
      topic: ref('Name'),
      kind: { type: 'string' },
      settings: { type: 'object', additionalProperties: true },
      secrets: { type: 'array', items: { type: 'string' }, description: 'References only' },
      nats: NATS_TRUST,
      created_at: isoTime,
      updated_at: isoTime,
    },
  },
  DedupeInput: {
    type: 'object',
    required: ['expr'],
    properties: {
      expr: { type: 'string', maxLength: 4096, description: 'jq over {headers, query, body}, e.g. .headers["x-event-id"] or .body.id; compiled when written' },
      horizon_seconds: { type: 'integer', minimum: 1, maximum: 604800, default: 86400, description: 'How long a key value stays claimed' },
      topic: { ...name, description: 'Optional; must equal the path topic' },
    },
  },
  Dedupe: {
    type: 'object',
    required: ['topic', 'expr', 'horizon_seconds', 'created_at', 'updated_at'],
    properties: { topic: ref('Name'), expr: { type: 'string' }, horizon_seconds: { type: 'integer' }, created_at: isoTime, updated_at: isoTime },
  },
  TriggerLink: {
    type: 'object',
    description: 'A trigger link as kept and listed: never its token (shown once, when made; kept only as its SHA-256)',
    required: ['id', 'hook', 'label', 'created_at', 'created_by', 'expires_at', 'uses', 'max_uses', 'revoked'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', pattern: '^tl_[a-z2-7]{20}$' },
      hook: ref('Name'),
      label: { type: 'string' },
      created_at: isoTime,
      created_by: { type: 'string', description: 'The operator token that made it: `<role>:<first 8 hex of its SHA-256>`' },
      expires_at: nullable({ ...isoTime, description: 'Past this time the link is refused; null: never' }),
      uses: { type: 'integer', minimum: 0, description: 'How many runs it kept' },
      max_uses: nullable({ type: 'integer', minimum: 1, description: 'At this many uses it is refused; null: no limit' }),
      revoked: { type: 'boolean' },
    },
  },
  TriggerLinkInput: {
    type: 'object',
    additionalProperties: false,
    description: 'All optional; an unknown field or a bad value is a 400 naming it. At most one of expires_in_seconds and expires_at.',
    properties: {
      label: { type: 'string', maxLength: 200, description: 'What the link is for (printable characters)' },
      expires_in_seconds: { type: 'integer', minimum: 1, maximum: 315360000 },
      expires_at: { ...isoTime, description: 'A future time, within ten years' },
      max_uses: { type: 'integer', minimum: 1, maximum: 1000000000 },
    },
  },
  TriggerLinkCreated: {
    type: 'object',
    required: ['link', 'token', 'path', 'url'],
    properties: {
      link: ref('TriggerLink'),
      token: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$', description: '256 random bits, base64url: shown in this answer only' },
      path: { type: 'string', description: '`/trigger/{token}`' },
      url: nullable({ type: 'string', description: 'HOOKS_PUBLIC_URL followed by the path; null when HOOKS_PUBLIC_URL is unset' }),
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
  SettingChange: {
    type: 'object',
    required: ['variable', 'from', 'to'],
    properties: { variable: { type: 'string' }, from: {}, to: {} },
  },
  SettingsView: {
    type: 'object',
    required: ['generation', 'config_file', 'env_overrides_file', 'settings'],
    properties: {
      generation: {
        type: 'integer',
        minimum: 1,
        description: '1 at boot, +1 per reload that applied something (also the gauge tai42_hook_runs_config_generation)',
      },
      config_file: { type: 'string', nullable: true, description: 'HOOKS_CONFIG_FILE' },
      env_overrides_file: { type: 'array', items: { type: 'string' } },
      settings: {
        type: 'array',
        items: {
          type: 'object',
          required: ['variable', 'value', 'source', 'live'],
          properties: {
            variable: { type: 'string' },
            value: { description: 'In effect in this process; API tokens as {set, roles}, URL passwords as ***' },
            source: { type: 'string', enum: ['default', 'file', 'environment'] },
            live: { type: 'boolean', description: 'A reload applies it; otherwise a change needs a restart' },
            pending_restart: { description: 'What the file or environment now says, applied at the next restart' },
          },
        },
      },
    },
  },
  SettingsReload: {
    type: 'object',
    required: ['ok', 'trigger', 'generation', 'applied', 'restart_needed', 'env_overrides_file'],
    properties: {
      ok: { type: 'boolean', enum: [true] },
      trigger: { type: 'string', enum: ['api'] },
      generation: { type: 'integer' },
      applied: { type: 'array', items: ref('SettingChange') },
      restart_needed: { type: 'array', items: ref('SettingChange') },
      env_overrides_file: { type: 'array', items: { type: 'string' } },
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
