// Which of the service's variables a plugin receives: only those its own code names, and those its operator lists
// for it (`service_env` in its config entry); its operator's own `env` goes over them. The HTTP process hands the
// runtime the service's environment already without its credentials (src/plugin-host/plugin-env.ts): that denylist
// stays a second line. Worked out once per load (a bundle, or a change of the operator's entries), never per call.

// `process.env.NAME` and `process.env['NAME']`: a literal name.
const DOTTED = /\bprocess\.env\.([A-Za-z_][A-Za-z0-9_]*)/g;
const INDEXED = /\bprocess\.env\[\s*(['"`])([A-Za-z_][A-Za-z0-9_]*)\1\s*\]/g;
// `process.env[name]`: a name computed at run time.
const DYNAMIC = /\bprocess\.env\[(?!\s*['"`][A-Za-z_][A-Za-z0-9_]*['"`]\s*\])/;
// A variable's name given literally to a helper (`requireEnv('STELLAR_NETWORK')`), as the reference's channels and
// launchtube plugins read theirs: counted only in a bundle that reads process.env by a computed name.
const HELPER_ARGUMENT = /[A-Za-z_$][\w$]*\(\s*(['"`])([A-Z][A-Z0-9_]{1,127})\1\s*[,)]/g;

/** The variable names a bundle's code names. */
function envNamesIn(code: string): Set<string> {
  const names = new Set<string>();
  for (const m of code.matchAll(DOTTED)) names.add(m[1]!);
  for (const m of code.matchAll(INDEXED)) names.add(m[2]!);
  if (DYNAMIC.test(code)) for (const m of code.matchAll(HELPER_ARGUMENT)) names.add(m[2]!);
  return names;
}

/**
 * The plugin's `process.env` as JSON, and the service's variables in it (names only, for the start log): of
 * `service` (the environment without credentials), the names the code names or the operator listed.
 */
export function pluginEnvJson(
  service: Record<string, string>,
  code: string | undefined,
  listed: readonly string[],
  own: Record<string, string>,
): { json: string; received: string[] } {
  const wanted = code === undefined ? new Set<string>() : envNamesIn(code);
  for (const name of listed) wanted.add(name);
  const picked: Record<string, string> = {};
  for (const name of [...wanted].sort()) if (Object.hasOwn(service, name)) picked[name] = service[name]!;
  return { json: JSON.stringify({ ...picked, ...own }), received: Object.keys(picked) };
}
