// The password in a database or Redis URL, if any: a secret the service holds, for the logger to scrub and for the
// plugins' environment to withhold.
export function urlPassword(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return decodeURIComponent(new URL(url).password) || undefined;
  } catch {
    return undefined;
  }
}
