// Injected by runtime/process/bundler.ts (esbuild `inject`): a plugin's free references to these globals are bound to pure-JS
// implementations, bundled only into plugins that use them. `Buffer` is the npm `buffer` package (the standard
// stand-in for Node's, as browser bundlers use it); URL and URLSearchParams are `whatwg-url`, the URL Standard's
// reference implementation.
export { Buffer } from 'buffer';
export { URL, URLSearchParams } from 'whatwg-url';
