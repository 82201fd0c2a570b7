// Express glue for the validation layer: compiles request schemas at mount time, hands typed input on.
import type { AnySchema } from 'ajv';
import type { Request } from 'express';
import { compile } from '../validation/compile.ts';

export interface RequestSchemas {
  params?: AnySchema;
  query?: AnySchema;
  body?: AnySchema;
}

export interface ValidatedInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
}

/**
 * Compile once, at mount; call per request. Express 5's `req.query` is a getter that re-parses,
 * so a copy is validated once and handed on.
 * @example const input = validator<{ relayer_id: string }, ListQuery, undefined>({ params, query });
 *          router.get('/x/:relayer_id', (req, res) => { const { params, query } = input(req); ... })
 */
export function validator<P = Record<string, string>, Q = Record<string, unknown>, B = unknown>(
  schemas: RequestSchemas,
) {
  const params = schemas.params ? compile<P>(schemas.params, 'path', { coerce: true }) : undefined;
  const query = schemas.query ? compile<Q>(schemas.query, 'query', { coerce: true }) : undefined;
  const body = schemas.body ? compile<B>(schemas.body, 'body') : undefined;
  return (req: Request): ValidatedInput<P, Q, B> => ({
    params: params ? params({ ...req.params }) : (req.params as P),
    query: query ? query({ ...(req.query as object) }) : (req.query as Q),
    body: body ? body(req.body) : (req.body as B),
  });
}
