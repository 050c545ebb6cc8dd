import { NAME_PATTERN, TOOL_NAME_MAX_LENGTH, type Logger } from '@hookyard/core';
import { discoveredToolName } from '../provider/naming';
import * as protobuf from 'protobufjs';

/** One unary method offered as a tool. */
export interface GrpcMethod {
  /** The tool-name part: the method in snake case, service-qualified when two services share a method name. */
  slug: string;
  /** `pkg.Service.Method`. */
  fullName: string;
  /** The HTTP/2 path of the call: `/pkg.Service/Method`. */
  path: string;
  request: protobuf.Type;
  response: protobuf.Type;
  comment: string | null;
}

/** `GetUser` -> `get_user`, `HTTPStatus` -> `http_status`; anything outside `[a-z0-9_-]` becomes `_`. */
export function snakeName(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, '_');
}

/**
 * The unary methods of the chosen services as tools. Streaming methods are
 * skipped (a tool call is one request, one reply) and logged; a name that
 * would break the tool-name pattern or length is skipped and logged too.
 */
export function unaryMethods(recordName: string, root: protobuf.Root, services: readonly string[], logger: Logger): GrpcMethod[] {
  const found: Omit<GrpcMethod, 'slug'>[] = [];
  for (const serviceName of services) {
    const service = root.lookupService(serviceName);
    for (const method of service.methodsArray) {
      const fullName = `${serviceName}.${method.name}`;
      if (method.requestStream || method.responseStream) {
        logger.info({ tool: recordName, method: fullName }, 'gRPC streaming method skipped: only unary methods become tools');
        continue;
      }
      method.resolve();
      const request = method.resolvedRequestType;
      const response = method.resolvedResponseType;
      if (!request || !response) continue;
      found.push({ fullName, path: `/${serviceName}/${method.name}`, request, response, comment: method.comment });
    }
  }
  const short = (m: { fullName: string }) => snakeName(m.fullName.slice(m.fullName.lastIndexOf('.') + 1));
  const counts = new Map<string, number>();
  for (const m of found) counts.set(short(m), (counts.get(short(m)) ?? 0) + 1);
  const out: GrpcMethod[] = [];
  for (const m of found) {
    // Two services with a `Get` each: both take the qualified name, so neither depends on discovery order.
    const slug = (counts.get(short(m)) ?? 0) > 1 ? snakeName(m.fullName.replace(/\./g, '_')) : short(m);
    const tool = discoveredToolName(recordName, { key: m.fullName, slug });
    if (!NAME_PATTERN.test(tool) || tool.length > TOOL_NAME_MAX_LENGTH) {
      logger.warn(
        { tool: recordName, method: m.fullName, name: tool },
        `gRPC method skipped: its tool name is not a valid name (at most ${TOOL_NAME_MAX_LENGTH} characters)`,
      );
      continue;
    }
    out.push({ ...m, slug });
  }
  return out;
}
