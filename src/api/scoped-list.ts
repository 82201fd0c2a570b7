// A list route's answer for a key scoped to some ids: those of them that exist, by id, paged as any list.
import { AppError } from '../errors.ts';
import type { Page, PageRequest } from '../domain/types.ts';

/**
 * `scope` 'all': the full list (`all`). Otherwise each id is fetched (`one`; a missing one is skipped) and the page
 * is cut from them: a permission list holds at most 100 ids, so this stays small.
 */
export async function scopedPage<T>(
  scope: 'all' | string[],
  query: PageRequest,
  all: () => Promise<Page<T>> | Page<T>,
  one: (id: string) => Promise<T> | T,
): Promise<Page<T>> {
  if (scope === 'all') return all();
  const found: Array<[string, T]> = [];
  for (const id of [...new Set(scope)].sort()) {
    try {
      found.push([id, await one(id)]);
    } catch (err) {
      // An id that does not exist, or could not (a permission may name any string), lists nothing.
      if (err instanceof AppError && (err.status === 404 || err.status === 400)) continue;
      throw err;
    }
  }
  const start = (query.page - 1) * query.per_page;
  return {
    items: found.slice(start, start + query.per_page).map(([, item]) => item),
    pagination: { current_page: query.page, per_page: query.per_page, total_items: found.length },
  };
}
