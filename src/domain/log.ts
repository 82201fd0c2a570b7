// The log every layer writes to, at the bottom of the domain: the subset of pino it uses (pino's Logger satisfies it).
export interface Log {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}
