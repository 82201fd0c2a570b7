// The page/per_page query every list route takes, in one place: page >= 1 (default 1), per_page 0-100 (default 10).

export const pagingProperties = {
  // Bounded so (page - 1) * per_page stays an exact integer SQLite can bind as an offset.
  page: { type: 'integer', minimum: 1, maximum: 1_000_000_000, default: 1 },
  per_page: { type: 'integer', minimum: 0, maximum: 100, default: 10 },
} as const;

export const pageQuery = { type: 'object', additionalProperties: false, properties: pagingProperties } as const;
