/** Hook names, topics and tool names: one URL-safe path segment. Never sanitized. */
export const NAME_PATTERN = /^[a-z0-9][a-z0-9_-]*$/;
export const NAME_PATTERN_SOURCE = '^[a-z0-9][a-z0-9_-]*$';
/** Longest accepted name or topic; keeps keys and metric labels bounded. */
export const NAME_MAX_LENGTH = 128;

export function isValidName(value: unknown): value is string {
  return typeof value === 'string' && value.length <= NAME_MAX_LENGTH && NAME_PATTERN.test(value);
}

/** The 400 line for a name that fails the pattern, naming the field and the pattern. */
export function nameViolation(field: string, value: unknown): string | undefined {
  if (typeof value !== 'string') return `${field} must be a string matching ${NAME_PATTERN_SOURCE}`;
  if (value.length > NAME_MAX_LENGTH) return `${field} must be at most ${NAME_MAX_LENGTH} characters`;
  if (!NAME_PATTERN.test(value)) return `${field} ${JSON.stringify(value)} must match ${NAME_PATTERN_SOURCE}`;
  return undefined;
}

/**
 * Longest tool name: the function-calling APIs of OpenAI, Anthropic and
 * Google take `^[a-zA-Z0-9_-]{1,64}$`. Tool names are NAME_PATTERN names of
 * at most this length, so they fit all three.
 */
export const TOOL_NAME_MAX_LENGTH = 64;
/**
 * Longest name of a registration that provides tools (openapi, mcp, grpc):
 * `<name>__` must leave room for an operation part and its hash.
 */
export const PROVIDER_NAME_MAX_LENGTH = 40;
