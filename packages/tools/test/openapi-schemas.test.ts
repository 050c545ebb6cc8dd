/**
 * OpenAPI schemas become JSON Schema: 3.0 through @openapi-contrib's
 * converter (plus the draft 4 -> 7 bounds, `x-*` and unknown formats), 3.1
 * used as the JSON Schema it is. Every result compiles with ajv in strict mode
 * and validates what the operation accepts.
 */
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { parseOpenApi, type OpenApiService } from '../src/openapi/operations';

const strict = () => {
  const ajv = new Ajv({ strict: true, allErrors: true });
  addFormats(ajv);
  return ajv;
};

function doc(openapi: string, schema: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    openapi,
    info: { title: 't', version: '1' },
    paths: {
      '/things/{id}': {
        post: {
          operationId: 'makeThing',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 0, exclusiveMinimum: true, 'x-github': { x: 1 } } }],
          requestBody: { required: true, content: { 'application/json': { schema } } },
          responses: { '200': { description: 'ok' } },
        },
      },
    },
    ...extra,
  };
}

function only(service: OpenApiService | string): Record<string, unknown> {
  if (typeof service === 'string') throw new Error(service);
  expect(service.operations).toHaveLength(1);
  return service.operations[0]!.parameters;
}

describe('OpenAPI 3.0 schemas', () => {
  const body = {
    type: 'object',
    required: ['title', 'id_seen'],
    'x-octokit': { removed: true },
    example: { title: 'x' },
    properties: {
      title: { type: 'string', example: 'Bug', 'x-multi-segment': true },
      milestone: { oneOf: [{ type: 'string' }, { type: 'integer' }], nullable: true, description: 'a milestone or null' },
      labels: { type: 'array', nullable: true, items: { type: 'string' } },
      state: { type: 'string', enum: ['open', 'closed'], nullable: true },
      id_seen: { type: 'integer', readOnly: true },
      secret: { type: 'string', writeOnly: true },
      score: { type: 'number', maximum: 10, exclusiveMaximum: true },
      at: { type: 'string', format: 'date-time' },
      nwo: { type: 'string', format: 'repo.nwo' },
      pet: {
        oneOf: [
          { type: 'object', properties: { kind: { type: 'string' }, meow: { type: 'boolean' } } },
          { type: 'object', properties: { kind: { type: 'string' }, bark: { type: 'boolean' } } },
        ],
        discriminator: { propertyName: 'kind' },
      },
    },
  };
  const schema = only(parseOpenApi(doc('3.0.3', body)));

  it('compiles with ajv strict', () => {
    expect(() => strict().compile(schema)).not.toThrow();
  });

  it('nullable becomes a null type, with or without a type of its own', () => {
    const validate = strict().compile(schema);
    expect(validate({ id: 1, title: 't', milestone: null, labels: null, state: null })).toBe(true);
    expect(validate({ id: 1, title: 't', milestone: 3, state: 'open' })).toBe(true);
    expect(validate({ id: 1, title: 't', milestone: true })).toBe(false);
    expect(validate({ id: 1, title: 't', state: 'merged' })).toBe(false);
    const props = schema.properties as Record<string, Record<string, unknown>>;
    expect(props.milestone).toEqual({ anyOf: [{ oneOf: [{ type: 'string' }, { type: 'integer' }] }, { type: 'null' }], description: 'a milestone or null' });
    expect(props.state).toEqual({ type: ['string', 'null'], enum: ['open', 'closed', null] });
  });

  it('boolean exclusiveMinimum/Maximum become the numeric bounds', () => {
    const props = schema.properties as Record<string, Record<string, unknown>>;
    expect(props.id).toMatchObject({ type: 'integer', exclusiveMinimum: 0 });
    expect(props.id!.minimum).toBeUndefined();
    expect(props.score).toEqual({ type: 'number', exclusiveMaximum: 10 });
    const validate = strict().compile(schema);
    expect(validate({ id: 0, title: 't' })).toBe(false);
    expect(validate({ id: 1, title: 't', score: 10 })).toBe(false);
    expect(validate({ id: 1, title: 't', score: 9.5 })).toBe(true);
  });

  it('a readOnly property leaves the request schema (and its required entry); writeOnly stays', () => {
    const props = schema.properties as Record<string, unknown>;
    expect(props.id_seen).toBeUndefined();
    expect(schema.required).toEqual(['id', 'title']);
    expect(props.secret).toEqual({ type: 'string' });
  });

  it('discriminator, example, x-* and formats no validator knows are gone; known formats stay', () => {
    const text = JSON.stringify(schema);
    for (const word of ['discriminator', 'example', 'x-octokit', 'x-github', 'x-multi-segment', 'repo.nwo', 'readOnly', 'writeOnly', '$schema'])
      expect(text).not.toContain(word);
    const props = schema.properties as Record<string, Record<string, unknown>>;
    expect(props.at).toEqual({ type: 'string', format: 'date-time' });
    expect(props.nwo).toEqual({ type: 'string' });
    expect((props.pet!.oneOf as unknown[]).length).toBe(2);
  });
});

describe('OpenAPI 3.1 schemas', () => {
  const body = {
    type: 'object',
    required: ['tags', 'stamp'],
    properties: {
      tags: { type: ['array', 'null'], items: { type: 'string' }, maxContains: 2, contains: { const: 'x' } },
      limit: { type: 'integer', exclusiveMinimum: 0, examples: [5], 'x-internal': true },
      stamp: { type: 'string', readOnly: true },
      kind: { const: 'a' },
    },
    $defs: { unused: { type: 'string', example: 'x' } },
  };
  const schema = only(parseOpenApi(doc('3.1.0', body)));

  it('is used as the JSON Schema it is: 2020-12 keywords kept, OpenAPI keywords and readOnly properties gone', () => {
    const props = schema.properties as Record<string, Record<string, unknown>>;
    expect(props.tags).toEqual(body.properties.tags);
    expect(props.limit).toEqual({ type: 'integer', exclusiveMinimum: 0, examples: [5] });
    expect(props.kind).toEqual({ const: 'a' });
    expect(props.stamp).toBeUndefined();
    expect(schema.required).toEqual(['id', 'tags']);
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile(schema);
    expect(validate({ id: 1, tags: ['a', 'x'], limit: 1, kind: 'a' })).toBe(true);
    expect(validate({ id: 1, tags: ['x', 'x', 'x'], kind: 'a' })).toBe(false);
    expect(validate({ id: 1, tags: null, limit: 0, kind: 'a' })).toBe(false);
  });
});

describe('documents that are not OpenAPI 3', () => {
  it('Swagger 2.0 is refused with a message that says so', () => {
    expect(parseOpenApi({ swagger: '2.0', info: {}, paths: {} })).toBe(
      `Swagger "2.0" documents are not supported: serve the API's OpenAPI 3 document (a Swagger 2.0 one converts to it, e.g. with swagger2openapi)`,
    );
  });
});
