import { randomBytes } from 'node:crypto';

/** What a pending registration's id looks like: 128 random bits, base64url. */
export const PENDING_TOOL_ID = /^[A-Za-z0-9_-]{22}$/;

/** A new pending registration id: unguessable, so only the ingress that wrote the record can name it. */
export function pendingToolId(): string {
  return randomBytes(16).toString('base64url');
}
