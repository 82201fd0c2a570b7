// Turns a validation schema (Ajv, JSON Schema 2020-12 with our own formats and keywords) into an OpenAPI 3.1 schema.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type SchemaObject = { [key: string]: Json };

// Our formats hold digit strings; OpenAPI's own `int64` means a JSON integer, so the format becomes a pattern.
const STRING_FORMATS: Record<string, { pattern: string; description: string }> = {
  u128: { pattern: '^\\d{1,39}$', description: 'decimal string of an unsigned 128-bit integer' },
  int64: { pattern: '^\\d{1,19}$', description: 'decimal string of a non-negative 64-bit integer' },
};

const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const SCHEMA_LISTS = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
const SCHEMA_VALUES = new Set([
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
]);

function copyData(value: unknown): Json {
  return JSON.parse(JSON.stringify(value)) as Json;
}

/**
 * Converts `schema`, replacing every sub-schema that is one of `named` (by identity) with a `$ref`
 * to `#/components/schemas/<name>`, so shared pieces are listed once. `self` is the component being
 * written, which must not refer to itself.
 */
export function toOpenApiSchema(schema: unknown, named: ReadonlyMap<object, string>, self?: object): Json {
  if (typeof schema === 'boolean') return schema;
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema))
    throw new Error(`not a schema: ${JSON.stringify(schema)}`);
  const ref = named.get(schema);
  if (ref !== undefined && schema !== self) return { $ref: `#/components/schemas/${ref}` };
  const out: SchemaObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (SCHEMA_MAPS.has(key)) {
      out[key] = Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, toOpenApiSchema(v, named)]));
    } else if (SCHEMA_LISTS.has(key)) {
      out[key] = (value as unknown[]).map((v) => toOpenApiSchema(v, named));
    } else if (SCHEMA_VALUES.has(key)) {
      out[key] = toOpenApiSchema(value, named);
    } else if (key === 'example') {
      out.examples = [copyData(value)];
    } else {
      out[key] = copyData(value);
    }
  }
  const format = typeof out.format === 'string' ? STRING_FORMATS[out.format] : undefined;
  if (format) {
    out['x-format'] = out.format!;
    delete out.format;
    out.pattern = format.pattern;
    out.description ??= format.description;
  }
  // `x-expect` is the phrase our 400s use for this field: the same words serve as its description.
  if (typeof out['x-expect'] === 'string') out.description ??= `${out['x-expect']}`;
  return out;
}

export type { Json, SchemaObject };
