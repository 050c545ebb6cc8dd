import type { LocalTool } from './local-repo';

/** `echo`: returns its arguments as its result. */
export const echoTool: LocalTool = {
  info: {
    name: 'echo',
    description: 'Returns its arguments as its result.',
    parameters: { type: 'object', additionalProperties: true },
    provider: 'local',
  },
  async run(args) {
    return args;
  },
};
