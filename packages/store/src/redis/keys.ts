/**
 * Key layout (prefix P, N partitions; everything a script touches for one run
 * shares the partition's hash tag so Redis Cluster keeps it in one slot):
 *
 *   {P}:hooks                 hash   hook name -> hook JSON
 *   {P}:topic:<topic>         zset   score 0, hook names on the topic (sorted by name)
 *   {P}:verifiers             hash   topic -> verifier binding JSON
 *   {P}:templates             hash   template id -> JSON
 *   {P}:tools                 hash   tool name -> record JSON
 *   {P}:delivery:<t>:<id>     string delivery claim (SET NX PX)
 *
 *   {P:p<n>}:run:<id>         hash   one run (fields: see run-hash.ts)
 *   {P:p<n>}:due              zset   pending/retry_wait runs by next dispatch time (ms)
 *   {P:p<n>}:lease            zset   running runs by lease expiry (ms)
 *   {P:p<n>}:done             zset   succeeded/skipped/discarded runs by finish time (retention)
 *   {P:p<n>}:ix:all           zset   score 0, every run, ordered by id (= creation time)
 *   {P:p<n>}:ix:h:<hook> / :ix:t:<topic> / :ix:s:<status>
 *   {P:p<n>}:ix:sh:<status>:<hook> / :ix:st:<status>:<topic>
 *
 * A run id carries its partition (run-ids.ts), so its keys derive from the id;
 * all runs of one event go to one partition chosen at random per event.
 *
 * Caveat: keep_event also reads {P}:topic:<topic}, which lives in another slot.
 * On a single Redis (and Sentinel) that is one atomic script; on Redis Cluster
 * the keep would need the topic index copied into each partition's slot.
 */
export class KeyLayout {
  constructor(readonly prefix: string) {}

  /** Hash tag of the hook records; `put_hook` builds topic index keys from it. */
  get hookTag(): string {
    return `{${this.prefix}}`;
  }
  get hooks(): string {
    return `${this.hookTag}:hooks`;
  }
  topic(topic: string): string {
    return `${this.hookTag}:topic:${topic}`;
  }
  get verifiers(): string {
    return `${this.hookTag}:verifiers`;
  }
  get templates(): string {
    return `${this.hookTag}:templates`;
  }
  get tools(): string {
    return `${this.hookTag}:tools`;
  }
  delivery(topic: string, deliveryId: string): string {
    return `${this.hookTag}:delivery:${topic}:${deliveryId}`;
  }

  tag(partition: number): string {
    return `{${this.prefix}:p${partition}}`;
  }
  run(partition: number, id: string): string {
    return `${this.tag(partition)}:run:${id}`;
  }
  due(partition: number): string {
    return `${this.tag(partition)}:due`;
  }
  lease(partition: number): string {
    return `${this.tag(partition)}:lease`;
  }
  done(partition: number): string {
    return `${this.tag(partition)}:done`;
  }
  /** A list index; `suffix` is one of the ix:* names above without the `ix:`. */
  index(partition: number, suffix: string): string {
    return `${this.tag(partition)}:ix:${suffix}`;
  }
  /** KEYS of a per-run script: run, due, lease, done. */
  runScriptKeys(partition: number, id: string): string[] {
    return [this.run(partition, id), this.due(partition), this.lease(partition), this.done(partition)];
  }
}
