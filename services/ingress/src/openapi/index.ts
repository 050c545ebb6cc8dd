import express, { type Router } from 'express';
import { OPENAPI_DOCUMENT } from './document';

export { OPENAPI_DOCUMENT } from './document';

/** The path the document is served on (no token). */
export const OPENAPI_PATH = '/openapi.json';

/** `GET /openapi.json`: the OpenAPI description of this app. Rendered once. */
export function openapiRouter(): Router {
  const router = express.Router();
  const text = JSON.stringify(OPENAPI_DOCUMENT);
  router.get(OPENAPI_PATH, (_req, res) => {
    res.type('application/json').send(text);
  });
  return router;
}
