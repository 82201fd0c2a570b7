// whatwg-url ships no types; it implements the standard URL API, so the standard types describe it.
declare module 'whatwg-url' {
  export const URL: typeof globalThis.URL;
  export const URLSearchParams: typeof globalThis.URLSearchParams;
}
