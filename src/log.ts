// Line-per-event logger on stderr. Every line passes through the redactor, so a secret that slips
// into a message (an RPC URL with ?api-key=, a webhook secret, an API key) never reaches the log.
import type { LogLevel } from './config.ts';

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

const API_KEY_PATTERN = /cig_[1-9A-HJ-NP-Za-km-z]{20,}/g;
// Query strings and userinfo of any URL may carry credentials.
const URL_SECRET_PATTERN = /(https?:\/\/)([^\s/@]+@)?([^\s/?#]+)([^\s?#]*)(\?[^\s#]*)?/g;

export function makeRedactor(secrets: readonly string[]): (text: string) => string {
  const sorted = [...new Set(secrets)].filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
  return (text: string) => {
    let out = text;
    for (const s of sorted) out = out.split(s).join('[redacted]');
    return out
      .replace(API_KEY_PATTERN, 'cig_[redacted]')
      .replace(URL_SECRET_PATTERN, (_m, scheme: string, _user: string, host: string, path: string) =>
        path && path !== '/' ? `${scheme}${host}/[redacted]` : `${scheme}${host}`,
      );
  };
}

export function createLogger(level: LogLevel, secrets: readonly string[] = [], sink: (line: string) => void = (l) => process.stderr.write(l + '\n')): Logger {
  const redact = makeRedactor(secrets);
  const emit = (lvl: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < ORDER[level]) return;
    const extra = fields
      ? ' ' +
        Object.entries(fields)
          .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x))}`)
          .join(' ')
      : '';
    sink(redact(`${new Date().toISOString()} ${lvl.toUpperCase().padEnd(5)} ${msg}${extra}`));
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
  };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
