import { badInput } from '@hookyard/core';
import type { JqEngine } from '@hookyard/jq';
import { LocalRepo, echoTool, printTool, type LocalTool } from '@hookyard/tools';

/**
 * A stand-in jq for validation tests only: refuses unbalanced brackets and
 * undeclared `$vars` the way jq's compiler does. The real engine has its own suite.
 */
export function fakeJq(): JqEngine {
  return {
    async check(expr: string, varNames: readonly string[] = []) {
      let depth = 0;
      for (const c of expr) {
        if ('([{'.includes(c)) depth++;
        if (')]}'.includes(c)) depth--;
        if (depth < 0) break;
      }
      if (depth !== 0) throw badInput(`jq: error: syntax error, unexpected end of file in ${JSON.stringify(expr)}`);
      for (const m of expr.matchAll(/\$([A-Za-z_]\w*)/g)) {
        if (!varNames.includes(m[1]!)) throw badInput(`jq: error: $${m[1]} is not defined`);
      }
    },
    async run() {
      return [];
    },
    async close() {},
  };
}

/** A tool with a real schema: a required string url, a number, and a jq-annotated property. */
export const fetchTool: LocalTool = {
  info: {
    name: 'fetcher',
    description: 'test tool',
    provider: 'local',
    parameters: {
      type: 'object',
      properties: {
        url: { type: 'string' },
        retries: { type: 'integer' },
        jq_expression: { type: 'object', 'x-tai42-expression': { input: 'payload' } },
        tool_names: { type: 'array' },
      },
      required: ['url'],
      additionalProperties: false,
    },
  },
  async run(args) {
    return args;
  },
};

export function testTools(): LocalRepo {
  return new LocalRepo([echoTool, printTool, fetchTool]);
}
