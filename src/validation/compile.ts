// The validation layer: owns the Ajv instances, compiles each schema once, and turns failures into reasons.
import { Ajv, type AnySchema, type ErrorObject, type SchemaValidateFunction, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { ValidationError } from '../errors.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const U128_MAX = (1n << 128n) - 1n;
const DECIMAL_INTEGER = /^-?\d+$/;

// JSON.parse makes `1e3`, `1000.0` and `1000` the same number, so json-body.ts notes, per parsed
// object, which keys held an integer written in exponent or decimal-point notation; the
// `x-plain-integer` keyword refuses those. Keyed by the parsed object itself: validate that object
// (remove fields in place), not a copy, or the note is lost.
const inexactNotation = new WeakMap<object, Set<string>>();

/** Records that `holder[key]` is an integer the client wrote as e.g. `1e3` or `7.0`. */
export function noteNonIntegerNotation(holder: object, key: string): void {
  let keys = inexactNotation.get(holder);
  if (!keys) inexactNotation.set(holder, (keys = new Set()));
  keys.add(key);
}
const I64_MAX = (1n << 63n) - 1n;
const U64_MAX = (1n << 64n) - 1n;

function configure(ajv: Ajv): Ajv {
  addFormats(ajv);
  // Big integers arrive as digit strings (see src/http/json-body.ts); these formats bound them.
  ajv.addFormat('u128', { type: 'string', validate: (s: string) => /^\d{1,39}$/.test(s) && BigInt(s) <= U128_MAX });
  ajv.addFormat('u64', { type: 'string', validate: (s: string) => /^\d{1,20}$/.test(s) && BigInt(s) <= U64_MAX });
  ajv.addFormat('int64', { type: 'string', validate: (s: string) => /^\d{1,19}$/.test(s) && BigInt(s) <= I64_MAX });
  // `x-expect` is a human phrase for anyOf/oneOf failures ("a non-negative integer (u128)").
  ajv.addVocabulary(['x-expect', 'example']);
  const plainInteger: SchemaValidateFunction = (enabled: boolean, data: unknown, _schema, cxt) => {
    const parent = cxt?.parentData as unknown;
    if (!enabled || typeof data !== 'number' || parent === null || typeof parent !== 'object') return true;
    if (!inexactNotation.get(parent)?.has(String(cxt!.parentDataProperty))) return true;
    plainInteger.errors = [
      {
        keyword: 'x-plain-integer',
        message: 'must be written as plain decimal digits (no exponent, no decimal point)',
        params: {},
      },
    ];
    return false;
  };
  ajv.addKeyword({ keyword: 'x-plain-integer', schemaType: 'boolean', validate: plainInteger });
  return ajv;
}

// Bodies are validated as sent (no coercion, no defaults injected into client data);
// path and query values are strings by nature, so their instance coerces.
// `verbose` puts parentSchema on each error, which describe() needs to read `x-expect`.
const strictAjv = configure(
  new Ajv({ allErrors: false, strict: true, strictRequired: false, coerceTypes: false, verbose: true }),
);
const coercingAjv = configure(
  new Ajv({
    allErrors: false,
    strict: true,
    strictRequired: false,
    coerceTypes: true,
    useDefaults: true,
    verbose: true,
  }),
);

export type Validator<T> = ((value: unknown) => T) & { schema: AnySchema };

/**
 * Compiles `schema` once (call at start-up) and returns a function that returns the value typed,
 * or throws a ValidationError whose reason names the field and the rule.
 * @example const parseBody = compile<SendBody>(sendSchema, 'body');
 */
export function compile<T>(schema: AnySchema, location: string, options: { coerce?: boolean } = {}): Validator<T> {
  let fn: ValidateFunction;
  try {
    fn = (options.coerce ? coercingAjv : strictAjv).compile(schema);
  } catch (err) {
    throw new Error(`invalid schema for ${location}: ${(err as Error).message}`, { cause: err });
  }
  // Values from a URL are strings, coerced by Ajv; check first what coercion would hide.
  const integerFields = options.coerce ? integerProperties(schema) : [];
  const validate = (value: unknown): T => {
    if (options.coerce) checkUrlValues(value, integerFields, location);
    if (fn(value)) return value as T;
    throw new ValidationError(describe(fn.errors ?? [], location), { errors: fn.errors ?? [] });
  };
  return Object.assign(validate, { schema });
}

function integerProperties(schema: AnySchema): string[] {
  const props = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  return Object.keys(props).filter((k) => props[k]?.type === 'integer');
}

/**
 * A repeated query parameter arrives as an array and is ambiguous; Ajv would also turn '1e3',
 * '0x10' or ' 7' into numbers, so integer parameters must be plain decimal digits.
 */
function checkUrlValues(value: unknown, integerFields: string[], location: string): void {
  if (value === null || typeof value !== 'object') return;
  const what = location === 'query' ? 'query parameter' : `${location} parameter`;
  for (const [key, v] of Object.entries(value)) {
    if (Array.isArray(v)) throw new ValidationError(`${what} '${key}' must be given once`);
    if (v !== null && typeof v === 'object') throw new ValidationError(`${what} '${key}' must be a single value`);
    if (typeof v === 'string' && integerFields.includes(key) && !DECIMAL_INTEGER.test(v)) {
      throw new ValidationError(`${what} '${key}' must be integer, written in plain decimal digits`);
    }
  }
}

function fieldName(location: string, instancePath: string, extra?: string): string {
  const parts = instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(extra);
  return parts.length ? parts.join('.') : location;
}

/** One sentence for the first failure: which field, which rule. */
function describe(errors: ErrorObject[], location: string): string {
  // anyOf/oneOf report every branch first; the summary entry carries the field's expectation,
  // unless a branch failed only for its notation, which is the more precise reason.
  const notation = errors.find((e) => e.keyword === 'x-plain-integer');
  const summary = errors.find((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const err = notation ?? summary ?? errors[0];
  if (!err) return `${location} is invalid`;
  const p = err.params as Record<string, unknown>;
  switch (err.keyword) {
    case 'required':
      return `missing required field '${fieldName(location, err.instancePath, String(p.missingProperty))}'`;
    case 'additionalProperties':
      return `unknown field '${fieldName(location, err.instancePath, String(p.additionalProperty))}'`;
    case 'anyOf':
    case 'oneOf': {
      const expect = (err.parentSchema as Record<string, unknown> | undefined)?.['x-expect'];
      return `'${fieldName(location, err.instancePath)}' must be ${typeof expect === 'string' ? expect : 'valid'}`;
    }
    case 'enum':
      return `'${fieldName(location, err.instancePath)}' must be one of: ${(p.allowedValues as unknown[]).join(', ')}`;
    default:
      return `'${fieldName(location, err.instancePath)}' ${err.message ?? 'is invalid'}`;
  }
}

/** Reusable schema pieces for exact integers (JSON numbers or decimal strings). */
export const schemas = {
  u128: {
    'x-expect': 'a non-negative integer (u128), as a JSON number or a decimal string',
    anyOf: [
      { type: 'integer', minimum: 0, 'x-plain-integer': true },
      { type: 'string', format: 'u128' },
    ],
  },
  int64: {
    'x-expect': 'a non-negative integer (int64), as a JSON number or a decimal string',
    anyOf: [
      { type: 'integer', minimum: 0, 'x-plain-integer': true },
      { type: 'string', format: 'int64' },
    ],
  },
} as const;
