import express, { type Router } from 'express';
import { API_ROUTES, SERVICE_ROUTES, openApiDocument } from '@hookyard/api';

/** The document served: generated from every declared route, the management API's and those outside /api. */
export const OPENAPI_DOCUMENT = openApiDocument([...API_ROUTES, ...SERVICE_ROUTES]);

/** The path the document is served on (no token). */
export const OPENAPI_PATH = '/openapi.json';

/** `GET /openapi.json`: the OpenAPI description of this app. Rendered once, when first asked for (about 0.4 MiB of text). */
export function openapiRouter(): Router {
  const router = express.Router();
  let text: string | undefined;
  router.get(OPENAPI_PATH, (_req, res) => {
    res.type('application/json').send((text ??= JSON.stringify(OPENAPI_DOCUMENT)));
  });
  return router;
}
