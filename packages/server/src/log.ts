/** One JSON object per line on stdout; the level comes from LOG_LEVEL. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** False when lines of `level` are dropped: a caller on a hot path can skip building their fields. */
  isEnabled?(level: Exclude<LogLevel, 'silent'>): boolean;
}

export function createLogger(level: LogLevel, write: (line: string) => void = (l) => process.stdout.write(l)): Logger {
  const threshold = LOG_LEVELS.indexOf(level);
  const at = (lvl: Exclude<LogLevel, 'silent'>) =>
    LOG_LEVELS.indexOf(lvl) < threshold
      ? () => undefined
      : (msg: string, fields?: Record<string, unknown>) => write(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields }) + '\n');
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), isEnabled: (lvl) => LOG_LEVELS.indexOf(lvl) >= threshold };
}
