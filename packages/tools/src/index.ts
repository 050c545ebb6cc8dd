export type { JsonSchema, ToolCallContext, ToolInfo, ToolRepo } from './types';
export { openAiFunction } from './types';
export { MultiRepo } from './multi-repo';
export { LocalRepo } from './local/local-repo';
export type { LocalTool } from './local/local-repo';
export { echoTool } from './local/echo';
export { printTool } from './local/print';
