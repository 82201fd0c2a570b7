// esbuild bundles the imported stylesheet into the hashed app.<hash>.css.
declare module '*.css';
