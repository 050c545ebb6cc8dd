import { ERROR_KINDS, JQ_FIELDS, NAME_MAX_LENGTH, NAME_PATTERN_SOURCE, STATE_TEMPLATE_NAMES, APPROVAL_ACTIONS } from '@hookyard/core';
import { HookInput, Name, declaredRoute, putHook } from '@hookyard/api';
import { buildOpenApiDocument } from '../src/openapi';
import { hookJsonSchema } from '../src/openapi/hook-schema';

const OPENAPI_DOCUMENT = buildOpenApiDocument();
const HOOK_JSON_SCHEMA = hookJsonSchema();

type Obj = Record<string, any>;

describe('hooks and topic config, declared once (@hookyard/api)', () => {
  it("keeps the declared hook schemas' constants equal to core's (the api package takes no runtime dependency on core)", () => {
    expect([Name.pattern, Name.maxLength]).toEqual([NAME_PATTERN_SOURCE, NAME_MAX_LENGTH]);
    const props = HookInput.properties as Obj;
    expect(JQ_FIELDS.filter((f) => !props[f]?.['x-tai42-expression'])).toEqual([]);
    expect(props.subject.properties.templates.items.enum).toEqual([...STATE_TEMPLATE_NAMES]);
    expect(props.approval.items.properties.action.enum).toEqual([...APPROVAL_ACTIONS]);
    const dryRun = (OPENAPI_DOCUMENT.components as Obj).schemas.DryRun;
    expect(dryRun.properties.error.properties.kind.enum).toEqual([...ERROR_KINDS]);
  });

  it('generates every hooks, verifier, dedupe and trigger-link operation from its declaration, with its role and audit action', () => {
    const paths = OPENAPI_DOCUMENT.paths as Record<string, Obj>;
    const ops = [
      ['post', '/api/hooks', 'hook.register'],
      ['delete', '/api/hooks/{name}', 'hook.remove'],
      ['put', '/api/hooks/topics/{topic}/verifier', 'verifier.bind'],
      ['delete', '/api/hooks/topics/{topic}/verifier', 'verifier.unbind'],
      ['put', '/api/hooks/topics/{topic}/dedupe', 'dedupe.bind'],
      ['delete', '/api/hooks/topics/{topic}/dedupe', 'dedupe.unbind'],
      ['post', '/api/hooks/{name}/links', 'trigger_link.create'],
      ['delete', '/api/hooks/{name}/links/{id}', 'trigger_link.revoke'],
    ];
    expect(ops.map(([m, p]) => paths[p!]?.[m!]?.['x-hookyard-audit'])).toEqual(ops.map(([, , a]) => a));
    expect(declaredRoute('POST', '/hooks')).toBe(putHook);
    expect(paths['/api/hooks']?.post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/HookInput' });
  });

  it('serves GET /api/hooks/schema from the declared HookInput: its $defs are the components it names', () => {
    expect(Object.keys(HOOK_JSON_SCHEMA.$defs as Obj)).toEqual(['ApprovalRule', 'JqField', 'Name']);
    expect((HOOK_JSON_SCHEMA.properties as Obj).condition.allOf).toEqual([{ $ref: '#/$defs/JqField' }]);
    expect(HOOK_JSON_SCHEMA.required).toEqual(['name', 'topic', 'tool']);
  });
});
