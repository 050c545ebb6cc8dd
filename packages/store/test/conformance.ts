/**
 * One conformance suite for every store implementation (memory and Redis):
 * `describeRunStoreConformance` for the run life cycle, `describeHookStoreConformance`
 * for hooks, verifiers, templates, tools and delivery claims, `describeBucketConformance`
 * for the flood limiter's token buckets.
 */
export { describeAuditConformance } from './conformance-audit';
export { describeBucketConformance } from './conformance-buckets';
export { describeDeclarationConformance } from './conformance-declarations';
export { describeRunStoreConformance } from './conformance-runs';
export { describeRunListConformance } from './conformance-list';
export { describeHookStoreConformance } from './conformance-hooks';
export { describeInteractionConformance } from './conformance-interactions';
export { describeStateConformance } from './conformance-states';
export type { StateStoresFactory } from './conformance-states';
export type { StoresFactory } from './fixtures';
