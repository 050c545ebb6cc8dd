// The annotations live with the declared schemas (@hookyard/api); the hand-written components still read them here.
export { EXPRESSIONS, POLICY_WHEN, type ExpressionAnnotation } from '@hookyard/api';
