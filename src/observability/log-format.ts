// LOG_FORMAT's output: pino's JSON lines as they are (`json`), or turned into text by pino-pretty's own formatter
// (`compact`: one line per entry, `pretty`: each field on a line of its own), as the reference's three formats.
import { createRequire } from 'node:module';
import pino, { type DestinationStream } from 'pino';
import type { LogFormat } from '../config/config.ts';

interface PrettyOptions {
  colorize: boolean;
  singleLine: boolean;
  translateTime: string;
  ignore: string;
}
type Prettify = (line: string) => string;
// pino-pretty's formatter, loaded only when a text format is asked for (`json` needs none of it).
const loadPinoPretty = () =>
  createRequire(import.meta.url)('pino-pretty') as { prettyFactory(options: PrettyOptions): Prettify };

function prettifier(format: Exclude<LogFormat, 'json'>, colorize: boolean): Prettify {
  let pretty: ReturnType<typeof loadPinoPretty>;
  try {
    pretty = loadPinoPretty();
  } catch {
    throw new Error(
      `LOG_FORMAT=${format} needs the pino-pretty package, which is not installed: install it (npm ci), or set LOG_FORMAT=json`,
    );
  }
  // The reference's timestamps (UTC, milliseconds); pid and hostname say nothing in a container, `service` is always us.
  return pretty.prettyFactory({
    colorize,
    singleLine: format === 'compact',
    translateTime: "UTC:yyyy-mm-dd'T'HH:MM:ss.l'Z'",
    ignore: 'pid,hostname,service',
  });
}

/**
 * The destination a logger writes through in `format`: undefined (pino's stdout) or `destination` itself for json.
 * Text is formatted synchronously as each line is written (no transport thread), so the lines before an exit are
 * all out, and they keep their order with what is printed on stdout beside them (the generated API key). The secret
 * scrubbing of the logger's streamWrite hook has run on the line before it gets here.
 */
export function formatDestination(
  format: LogFormat,
  destination?: DestinationStream & { flushSync?(): void },
): (DestinationStream & { flushSync?(): void }) | undefined {
  if (format === 'json') return destination;
  // Colours only for a person at a terminal: never in a file, a pipe or a container's log.
  const prettify = prettifier(format, destination === undefined && process.stdout.isTTY === true);
  const out = destination ?? pino.destination({ dest: 1, sync: true });
  return {
    write: (line: string) => out.write(prettify(line)),
    ...(typeof out.flushSync === 'function' ? { flushSync: () => out.flushSync!() } : {}),
  };
}
