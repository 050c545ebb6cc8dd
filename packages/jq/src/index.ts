export type { JqEngine, JqLane, JqRunOptions } from './types';
export { isTruthyOutput } from './types';
export { createJqEngine, DEFAULT_JQ_TIMEOUT_MS } from './engine';
export type { HookyardJqEngine, JqEngineOptions, JqEngineStats } from './engine';
export { resolveJqField } from './template';
export { compileJq } from './compile';
export type { CompiledProgram } from './compile';
export { topLevelAssignment } from './compile/assignment';
export type { TopLevelAssignment } from './compile/assignment';
