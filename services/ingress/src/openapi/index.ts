import express, { type Router } from 'express';
import { API_ROUTES, SERVICE_ROUTES, openApiDocument } from '@hookyard/api';

/**
 * The document served: generated from every declared route, the management API's and those outside /api.
 * Built when asked for and not kept (about 0.8 MiB of heap an idle ingress would otherwise hold): the
 * router keeps its text, the hook schema its own cut.
 */
export function buildOpenApiDocument(): Record<string, unknown> {
  return openApiDocument([...API_ROUTES, ...SERVICE_ROUTES]);
}

/** The path the document is served on (no token). */
export const OPENAPI_PATH = '/openapi.json';

/** `GET /openapi.json`: the OpenAPI description of this app. Rendered once, when first asked for (about 0.4 MiB of text). */
export function openapiRouter(): Router {
  const router = express.Router();
  let text: string | undefined;
  router.get(OPENAPI_PATH, (_req, res) => {
    res.type('application/json').send((text ??= JSON.stringify(buildOpenApiDocument())));
  });
  return router;
}
