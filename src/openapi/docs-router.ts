// Serves the API reference: the OpenAPI document as JSON, and Swagger UI from our own process (no CDN).
import { createRequire } from 'node:module';
import path from 'node:path';
import { Router } from 'express';
import { AppError } from '../errors.ts';

const UI_DIR = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
// Only these files leave the package directory; anything else under /docs/ is an unknown route.
const UI_ASSETS = new Set([
  'swagger-ui.css',
  'swagger-ui-bundle.js',
  'favicon-32x32.png',
  'favicon-16x16.png',
  'swagger-ui.css.map',
  'swagger-ui-bundle.js.map',
]);

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Relaybox API reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/initializer.js"></script>
</body>
</html>
`;

// validatorUrl null: Swagger UI would otherwise send the document to validator.swagger.io.
const INITIALIZER = `window.ui = SwaggerUIBundle({
  url: '/api/v1/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  persistAuthorization: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;

// Swagger UI styles elements inline and shows data: images; everything else comes from this origin.
const CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'";

/**
 * Where to mount the docs router: the paths its routes can match (any case, before a trailing slash, as Express
 * matches). Zero-width, so the router still sees the whole path; any other request passes it at one regex test
 * instead of walking its routes (and leaving it through a setImmediate).
 */
export const DOCS_PATHS = /^(?=\/(?:docs|api\/v1\/openapi\.json)(?:\/|$))/i;

/**
 * GET /api/v1/openapi.json and GET /docs. The document is built and serialized on its first request, then kept: most
 * instances never serve it, and it is ~0.5 MiB as a string plus the object it comes from.
 */
export function createDocsRouter(buildDocument: () => object): Router {
  let json: string | undefined;
  const router = Router();
  router.get('/api/v1/openapi.json', (_req, res) => {
    json ??= JSON.stringify(buildDocument());
    res.type('application/json').send(json);
  });
  router.get('/docs', (_req, res) => {
    res.setHeader('Content-Security-Policy', CSP);
    res.type('html').send(PAGE);
  });
  router.get('/docs/initializer.js', (_req, res) => {
    res.type('text/javascript').send(INITIALIZER);
  });
  router.get('/docs/:asset', (req, res, next) => {
    const asset = req.params.asset;
    if (!UI_ASSETS.has(asset)) return next(new AppError('ROUTE_NOT_FOUND', { reason: `no route for GET ${req.path}` }));
    res.sendFile(asset, { root: UI_DIR, maxAge: '1d' }, (err) => {
      if (err) next(err);
    });
  });
  return router;
}
