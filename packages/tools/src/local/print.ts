import type { LocalTool } from './local-repo';

/** `print`: logs its arguments at INFO and returns `{printed: true}`. */
export const printTool: LocalTool = {
  info: {
    name: 'print',
    description: 'Logs its arguments (structured, at INFO) and returns {"printed": true}.',
    parameters: { type: 'object', additionalProperties: true },
    provider: 'local',
  },
  async run(args, ctx) {
    ctx.logger.info({ run: ctx.runId, hook: ctx.hook, tool: 'print', args }, 'print');
    return { printed: true };
  },
};
