/**
 * docs/asyncapi.yaml describes the subjects the code uses and carries the very
 * schemas @hookyard/core validates with: any drift fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { MESSAGE_SCHEMAS, validateMessage, type MessageKind } from '@hookyard/core';
import { discoverySubject, ingestSubject, runEventSubject, runSubject } from '@hookyard/bus';

const doc: any = parse(readFileSync(join(__dirname, '..', '..', 'docs', 'asyncapi.yaml'), 'utf8'));

/** components.schemas name -> the core kind it must equal. */
const SCHEMA_KINDS: Record<string, MessageKind> = {
  Topic: 'topic',
  IngestHeaders: 'ingest_headers',
  IngestEvent: 'ingest_event',
  RunSummary: 'run_summary',
  HooksRunFailedEvent: 'run_failed_event',
};

function resolve(ref: string): unknown {
  expect(ref.startsWith('#/')).toBe(true);
  return ref
    .slice(2)
    .split('/')
    .reduce((node: any, key) => node?.[key], doc);
}

function refs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => refs(n, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refs(v, out);
    }
  }
  return out;
}

describe('docs/asyncapi.yaml', () => {
  it('is AsyncAPI 2.6 with the four subject families, named as the bus names them', () => {
    expect(doc.asyncapi).toBe('2.6.0');
    expect(Object.keys(doc.channels).sort()).toEqual([
      'hooks.discovery.request',
      'hooks.events.run.{status}.{hook}',
      'hooks.ingest.{topic}',
      'hooks.runs.ready.ids',
    ]);
    expect(discoverySubject('hooks')).toBe('hooks.discovery.request');
    expect(ingestSubject('hooks', '{topic}')).toBe('hooks.ingest.{topic}');
    expect(runSubject('hooks')).toBe('hooks.runs.ready.ids');
    expect(runEventSubject('hooks', { status: 'failed', hook: 'greet' })).toBe('hooks.events.run.failed.greet');
    expect(doc.channels['hooks.ingest.{topic}'].publish.message.$ref).toBe('#/components/messages/IngestEvent');
    expect(doc.channels['hooks.events.run.{status}.{hook}'].subscribe.message.$ref).toBe('#/components/messages/RunSummary');
  });

  it('resolves every $ref', () => {
    const all = refs(doc);
    expect(all.length).toBeGreaterThan(5);
    for (const ref of all) expect({ ref, found: resolve(ref) !== undefined }).toEqual({ ref, found: true });
  });

  it('carries exactly the core message schemas', () => {
    expect(Object.keys(doc.components.schemas).sort()).toEqual(Object.keys(SCHEMA_KINDS).sort());
    expect(new Set(Object.values(SCHEMA_KINDS))).toEqual(new Set(Object.keys(MESSAGE_SCHEMAS)));
    for (const [name, kind] of Object.entries(SCHEMA_KINDS)) {
      expect({ name, schema: doc.components.schemas[name] }).toEqual({ name, schema: JSON.parse(JSON.stringify(MESSAGE_SCHEMAS[kind])) });
    }
  });

  it('has examples that pass the schemas they illustrate', () => {
    const m = doc.components.messages;
    for (const ex of m.IngestEvent.examples) {
      expect(validateMessage('ingest_headers', ex.headers)).toEqual({ ok: true });
      expect(validateMessage('ingest_event', ex.payload)).toEqual({ ok: true });
    }
    for (const ex of m.RunSummary.examples) expect(validateMessage('run_summary', ex.payload)).toEqual({ ok: true });
  });
});
