/**
 * Structured JSON log lines on stdout (journald-friendly). One object per line; callers pass
 * fields, never preformatted secrets. The Logger interface is the protocol layer's, so the daemon
 * hands the same logger to the mod link.
 */
import type { LogFields, Logger } from '../protocol/log.ts';

export { silentLogger, type LogFields, type Logger } from '../protocol/log.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** A logger whose level can change while it runs (SIGHUP reloads the config). */
export interface LevelledLogger extends Logger {
  setLevel(level: LogLevel): void;
}

export function createLogger(
  options: { level?: LogLevel; write?: (line: string) => void } = {},
): LevelledLogger {
  let threshold = RANK[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => process.stdout.write(line));
  const emit =
    (level: LogLevel) =>
    (msg: string, fields: LogFields = {}) => {
      if (RANK[level] < threshold) return;
      write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }, errorReplacer)}\n`);
    };
  return {
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    setLevel: (level: LogLevel) => {
      threshold = RANK[level];
    },
  };
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  return value;
}
