/**
 * docs/asyncapi.yaml describes the subjects the code uses and carries the very
 * schemas @hookyard/core validates with, generated (ASYNCAPI_SCHEMAS of the
 * ingress; the run event's is the API's declared RunEvent): any drift fails here.
 * After `pnpm build`, write the schemas into the file with:
 *   node -e "const fs=require('fs'),Y=require('yaml'),{ASYNCAPI_SCHEMAS}=require('./services/ingress/dist/openapi/asyncapi');const d=Y.parseDocument(fs.readFileSync('docs/asyncapi.yaml','utf8'));d.setIn(['components','schemas'],d.createNode(ASYNCAPI_SCHEMAS));fs.writeFileSync('docs/asyncapi.yaml',d.toString({lineWidth:0}))"
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseDocument } from 'yaml';
import { RunEvent, runEvents } from '@hookyard/api';
import { MESSAGE_SCHEMAS, validateMessage, type MessageKind } from '@hookyard/core';
import { ASYNCAPI_SCHEMAS } from '../../services/ingress/src/openapi/asyncapi';
import { discoverySubject, ingestSubject, runEventSubject, runSubject } from '@hookyard/bus';

const text = readFileSync(join(__dirname, '..', '..', 'docs', 'asyncapi.yaml'), 'utf8');
const doc: any = parse(text);

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

  it('carries exactly the core message schemas, as renderAsyncApi writes them (no hand-written copy)', () => {
    expect(Object.keys(doc.components.schemas).sort()).toEqual(Object.keys(SCHEMA_KINDS).sort());
    expect(new Set(Object.values(SCHEMA_KINDS))).toEqual(new Set(Object.keys(MESSAGE_SCHEMAS)));
    const { $id: _id, ...runSummary } = JSON.parse(JSON.stringify(MESSAGE_SCHEMAS.run_summary));
    for (const [name, kind] of Object.entries(SCHEMA_KINDS)) {
      const expected = kind === 'run_summary' ? runSummary : JSON.parse(JSON.stringify(MESSAGE_SCHEMAS[kind]));
      expect({ name, schema: doc.components.schemas[name] }).toEqual({ name, schema: expected });
    }
    expect(doc.components.schemas).toEqual(ASYNCAPI_SCHEMAS);
    // The file is as the command in this file's header writes it: a schema edited by hand fails here.
    const written = parseDocument(text);
    written.setIn(['components', 'schemas'], written.createNode(ASYNCAPI_SCHEMAS));
    expect(text).toBe(written.toString({ lineWidth: 0 }));
  });

  it('the run event payload is the declared RunEvent: the NATS message, core validation and GET /api/events share one schema', () => {
    const payload = resolve(doc.components.messages.RunSummary.payload.$ref);
    const { $id: _id, ...declared } = JSON.parse(JSON.stringify(RunEvent));
    expect(payload).toEqual(declared);
    expect(runEvents.answers[200].schema).toBe(RunEvent);
    // Core validates the message with the same schema (written there: core depends on no package).
    expect(JSON.parse(JSON.stringify(MESSAGE_SCHEMAS.run_summary))).toEqual(declared);
    // Its `nullable` is OpenAPI 3.0's: the message says which schema format its payload is written in.
    expect(doc.components.messages.RunSummary.schemaFormat).toBe('application/vnd.oai.openapi;version=3.0.0');
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
