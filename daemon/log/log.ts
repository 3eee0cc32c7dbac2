/**
 * The daemon's log lines, written by pino: JSON lines on stdout (journald-friendly) or, for a
 * person at a terminal, pino-pretty's coloured single lines. Callers pass a message and
 * snake_case fields, never preformatted secrets and never a key. The Logger interface is the
 * protocol layer's, so the daemon hands the same logger to the mod link and no call site knows
 * pino is behind it. bench/logger.ts measures pino against the hand-rolled logger it replaced
 * (docs/operations.md, "Logs").
 */
import { Writable } from 'node:stream';
import pino, { type DestinationStream, type Logger as PinoLogger } from 'pino';
import pretty from 'pino-pretty';
import type { LogFields, Logger } from '../../protocol/log.ts';
import { stdoutLineSink } from './log-sink.ts';

export { silentLogger, type LogFields, type Logger } from '../../protocol/log.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];
export type LogFormat = 'json' | 'pretty';
export const LOG_FORMATS: readonly LogFormat[] = ['json', 'pretty'];

/** A logger whose level can change while it runs (SIGHUP reloads the config). */
export interface LevelledLogger extends Logger {
  setLevel(level: LogLevel): void;
  /** Writes out whatever is buffered, then calls `done`. */
  flush(done?: (error?: Error) => void): void;
}

export interface LoggerOptions {
  level?: LogLevel;
  /** `json` (the default) or `pretty`; resolveLogFormat picks one for a command. */
  format?: LogFormat;
  /** Where finished lines go; default: standard output, written once per event-loop turn (log-sink.ts). */
  write?: (line: string) => void;
  /** Colours in the pretty form; default: when stdout is a terminal. */
  colorize?: boolean;
}

export function createLogger(options: LoggerOptions = {}): LevelledLogger {
  const format = options.format ?? 'json';
  const destination = destinationOf(options, format);
  const base = pino(
    {
      level: options.level ?? 'info',
      base: null,
      timestamp: isoTimeOncePerMs(),
      formatters: { level: (label) => ({ level: label }) },
      serializers: { error: pino.stdSerializers.err },
    },
    destination,
  );
  return wrap(base);
}

/**
 * pino's `isoTime`, formatted once per millisecond: under load many lines share one (a request
 * line formatted the date for each request, about a twentieth of the line's cost).
 */
function isoTimeOncePerMs(): () => string {
  let lastMs = -1;
  let fragment = '';
  return () => {
    const now = Date.now();
    if (now !== lastMs) {
      lastMs = now;
      fragment = `,"time":"${new Date(now).toISOString()}"`;
    }
    return fragment;
  };
}

/**
 * The format a command logs in: the flag, else the config file, else JSON under systemd
 * (INVOCATION_ID or JOURNAL_STREAM set), pretty at a terminal, JSON anywhere else.
 */
export function resolveLogFormat(
  flag: LogFormat | undefined,
  configured: LogFormat | undefined,
  env: Readonly<Record<string, string | undefined>>,
  isTty: boolean,
): LogFormat {
  if (flag) return flag;
  if (configured) return configured;
  if (env['INVOCATION_ID'] || env['JOURNAL_STREAM']) return 'json';
  return isTty ? 'pretty' : 'json';
}

function destinationOf(options: LoggerOptions, format: LogFormat): DestinationStream {
  const custom = options.write;
  if (format === 'pretty') {
    return pretty({
      colorize: options.colorize ?? (custom === undefined && process.stdout.isTTY === true),
      translateTime: 'SYS:HH:MM:ss.l',
      singleLine: true,
      sync: true,
      ...(custom ? { destination: lineSink(custom) } : { destination: 1 }),
    });
  }
  if (custom) return { write: (line: string) => void custom(line) };
  return stdoutLineSink();
}

/** A Writable that hands each finished line to `write` (pino-pretty wants a stream). */
function lineSink(write: (line: string) => void): Writable {
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      write(chunk.toString());
      done();
    },
  });
}

function wrap(base: PinoLogger): LevelledLogger {
  const emit =
    (level: LogLevel) =>
    (message: string, fields?: LogFields): void => {
      if (fields === undefined) base[level](message);
      else base[level](fields, message);
    };
  return {
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    setLevel: (level) => {
      base.level = level;
    },
    flush: (done) => base.flush(done),
  };
}
