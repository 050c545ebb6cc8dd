export type { JqEngine } from './types';
export { isTruthyOutput } from './types';
