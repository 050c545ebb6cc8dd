import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The compat prefix of every Hookyard metric; dashboards are built on it. */
export const METRIC_PREFIX = 'tai42_hook_runs_';

/**
 * Every metric of every role, on one registry per process. Labels are bounded
 * by what is registered: `topic` and `hook` name registered records only (the
 * door counts events on topics without hooks under topic="_unrouted").
 */
export interface HookMetrics {
  registry: Registry;
  accepted: Counter<'topic' | 'hook'>;
  started: Counter<'hook'>;
  succeeded: Counter<'hook'>;
  skipped: Counter<'hook'>;
  /** Runs that ended denied (an approval policy or an approver said no). */
  denied: Counter<'hook'>;
  /** Runs that ended cancelled (their interaction was cancelled). */
  cancelled: Counter<'hook'>;
  /** Runs that parked on an interaction, by interaction kind. */
  parkedTotal: Counter<'hook' | 'kind'>;
  failed: Counter<'hook' | 'kind'>;
  retried: Counter<'hook' | 'kind'>;
  leaseLapsed: Counter<never>;
  dispatched: Counter<'source'>;
  doorRequests: Counter<'code'>;
  verificationFailures: Counter<'topic'>;
  /** Messages the NATS door settled, by verdict: accepted, duplicate, rejected (malformed; never redelivered), failed (redelivered later). */
  ingestMessages: Counter<'verdict'>;
  /** Events kept on a topic with no hook, per topic: count through `countUnrouted` (its labels are bounded). */
  unrouted: Counter<'topic'>;
  /**
   * Agent calls that ended, by agent, tool and outcome (succeeded, denied, cancelled, failed). Bounded: agents are
   * made by an admin and a call reaches an executor only for a tool the agent may call.
   */
  agentCalls: Counter<'agent' | 'tool' | 'status'>;
  /** Audit trail entries the store refused to keep (the change itself went through; logged at ERROR). */
  auditWriteFailures: Counter<never>;
  /** Audit trail entries dropped for space (a list past its count bound), per list: `changes` or `refused` (logged at WARN). */
  auditDropped: Counter<'list'>;
  inFlight: Gauge<never>;
  pending: Gauge<never>;
  heldFailed: Gauge<never>;
  /** Runs parked on an interaction, store-wide. */
  parked: Gauge<never>;
  duration: Histogram<'hook' | 'status'>;
  acceptToStart: Histogram<never>;
}

export const UNROUTED_TOPIC = '_unrouted';

/** Distinct topic labels of `unrouted_total` per process; later topics count under `_other`. */
export const UNROUTED_LABEL_MAX = 100;
/** The label that topics past UNROUTED_LABEL_MAX share. */
export const UNROUTED_OTHER = '_other';

const unroutedLabels = new WeakMap<HookMetrics, Set<string>>();

/**
 * Counts one event on a topic with no hook under unrouted_total{topic}. A
 * sender spraying random topics must not grow the scrape without bound: the
 * first UNROUTED_LABEL_MAX topics a process's metrics saw (both doors
 * together) get their own label, later ones count under `_other`.
 */
export function countUnrouted(metrics: HookMetrics, topic: string): void {
  let labelled = unroutedLabels.get(metrics);
  if (!labelled) unroutedLabels.set(metrics, (labelled = new Set()));
  if (!labelled.has(topic) && labelled.size < UNROUTED_LABEL_MAX) labelled.add(topic);
  metrics.unrouted.inc({ topic: labelled.has(topic) ? topic : UNROUTED_OTHER });
}

export function createMetrics(options: { defaultMetrics?: boolean; role?: string } = {}): HookMetrics {
  const registry = new Registry();
  if (options.role) registry.setDefaultLabels({ role: options.role });
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'hookyard_' });
  const p = METRIC_PREFIX;
  const registers = [registry];
  return {
    registry,
    accepted: new Counter({ name: `${p}accepted_total`, help: 'Runs kept by the door, per topic and hook', labelNames: ['topic', 'hook'], registers }),
    started: new Counter({ name: `${p}started_total`, help: 'Attempts started (lease claimed)', labelNames: ['hook'], registers }),
    succeeded: new Counter({ name: `${p}succeeded_total`, help: 'Runs that ended succeeded', labelNames: ['hook'], registers }),
    skipped: new Counter({ name: `${p}skipped_total`, help: 'Runs whose condition was false', labelNames: ['hook'], registers }),
    denied: new Counter({ name: `${p}denied_total`, help: 'Runs that ended denied (a policy or an approver said no)', labelNames: ['hook'], registers }),
    cancelled: new Counter({
      name: `${p}cancelled_total`,
      help: 'Runs that ended cancelled (their interaction was cancelled)',
      labelNames: ['hook'],
      registers,
    }),
    parkedTotal: new Counter({
      name: `${p}parked_total`,
      help: 'Runs that parked on an interaction, by kind (approval, wait)',
      labelNames: ['hook', 'kind'],
      registers,
    }),
    failed: new Counter({ name: `${p}failed_total`, help: 'Runs held as failed, by error kind', labelNames: ['hook', 'kind'], registers }),
    retried: new Counter({ name: `${p}retried_total`, help: 'Attempts that failed and were scheduled again', labelNames: ['hook', 'kind'], registers }),
    leaseLapsed: new Counter({ name: `${p}lease_lapsed_total`, help: 'Running attempts whose lease lapsed (worker lost)', registers }),
    dispatched: new Counter({
      name: `${p}dispatched_total`,
      help: 'Run ids published for executors, by source (door, sweep)',
      labelNames: ['source'],
      registers,
    }),
    doorRequests: new Counter({ name: `${p}door_requests_total`, help: 'Public door answers by HTTP status', labelNames: ['code'], registers }),
    verificationFailures: new Counter({ name: `${p}verification_failures_total`, help: 'Deliveries refused by a verifier', labelNames: ['topic'], registers }),
    ingestMessages: new Counter({
      name: `${p}ingest_messages_total`,
      help: 'NATS ingest messages by verdict (accepted, duplicate, rejected, refused: a verifier-bound topic not trusting NATS, failed)',
      labelNames: ['verdict'],
      registers,
    }),
    unrouted: new Counter({
      name: `${p}unrouted_total`,
      help: 'Events kept on a topic with no hook, per topic (past 100 topics in a process: topic="_other")',
      labelNames: ['topic'],
      registers,
    }),
    agentCalls: new Counter({
      name: `${p}agent_calls_total`,
      help: 'Agent tool calls that ended, per agent, tool and outcome (succeeded, denied, cancelled, failed)',
      labelNames: ['agent', 'tool', 'status'],
      registers,
    }),
    auditWriteFailures: new Counter({
      name: `${p}audit_write_failures_total`,
      help: 'Audit trail entries the store refused to keep (the change itself went through)',
      registers,
    }),
    auditDropped: new Counter({
      name: `${p}audit_dropped_total`,
      help: 'Audit trail entries dropped for space, per list: changes (past HOOKS_AUDIT_MAX_ENTRIES) or refused (past HOOKS_AUDIT_MAX_REFUSED)',
      labelNames: ['list'],
      registers,
    }),
    inFlight: new Gauge({ name: `${p}in_flight`, help: 'Runs executing in this process', registers }),
    pending: new Gauge({ name: `${p}pending`, help: 'Runs waiting to run (pending or retry_wait), store-wide', registers }),
    heldFailed: new Gauge({ name: `${p}held_failed`, help: 'Runs held as failed, store-wide', registers }),
    parked: new Gauge({ name: `${p}parked`, help: 'Runs parked on an interaction (no lease, no worker slot), store-wide', registers }),
    duration: new Histogram({
      name: `${p}duration_seconds`,
      help: 'Duration of an attempt from claim to outcome',
      labelNames: ['hook', 'status'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
    acceptToStart: new Histogram({
      name: `${p}accept_to_start_seconds`,
      help: 'Time from the door keeping a run to its first claim',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30],
      registers,
    }),
  };
}
