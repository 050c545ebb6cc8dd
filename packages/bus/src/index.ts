export type { RunBus, Subscription } from './types';
