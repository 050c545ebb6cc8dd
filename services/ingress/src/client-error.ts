// The answer lives in core so every role's server installs it without loading the ingress.
export { answerClientError } from '@hookyard/core';
