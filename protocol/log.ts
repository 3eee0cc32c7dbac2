/**
 * The logger the protocol layer writes to: four levels, a message and structured fields. The
 * daemon passes its own; the default is silent so embedding a bridge never prints by surprise.
 */
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

const ignore = (): void => {};

export const silentLogger: Logger = Object.freeze({
  debug: ignore,
  info: ignore,
  warn: ignore,
  error: ignore,
});
