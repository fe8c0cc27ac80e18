// Line-per-event logger on stderr, built on pino (synchronous destination: no worker thread, so it
// runs inside the single compiled binary). `json` writes one object per line with level, time,
// message and the fields; `text` renders the same record for a terminal. Every line passes through
// the redactor, so a secret that slips into a message or a field (an RPC URL with ?api-key=, a
// webhook secret, an API key) never reaches the log.
import { writeSync } from 'node:fs';
import pino from 'pino';
import type { LogFormat, LogLevel } from './config.ts';

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** Whether lines at `level` are written: lets a caller skip gathering fields nobody will see. */
  enabled(level: LogLevel): boolean;
}

const API_KEY_PATTERN = /cig_[1-9A-HJ-NP-Za-km-z]{20,}/g;
// Query strings and userinfo of any URL may carry credentials. A quote or backslash ends a URL, so
// the pattern never eats the JSON around one.
const URL_SECRET_PATTERN = /(https?:\/\/)([^\s"\\/@]+@)?([^\s"\\/?#]+)([^\s"\\?#]*)(\?[^\s"\\#]*)?/g;

export function makeRedactor(secrets: readonly string[]): (text: string) => string {
  // A secret appears JSON-escaped inside a JSON line: hide both spellings.
  const spellings = secrets.flatMap((s) => [s, JSON.stringify(s).slice(1, -1)]);
  const sorted = [...new Set(spellings)].filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
  return (text: string) => {
    let out = text;
    for (const s of sorted) if (out.includes(s)) out = out.split(s).join('[redacted]');
    return out
      .replace(API_KEY_PATTERN, 'cig_[redacted]')
      .replace(URL_SECRET_PATTERN, (_m, scheme: string, _user: string, host: string, path: string) =>
        path && path !== '/' ? `${scheme}${host}/[redacted]` : `${scheme}${host}`,
      );
  };
}

/** `time LEVEL message key=value ...` from one JSON record. */
function asText(line: string): string {
  const { level, time, message, ...fields } = JSON.parse(line) as Record<string, unknown>;
  const extra = Object.entries(fields)
    .map(([k, v]) => ` ${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join('');
  return `${time} ${String(level).toUpperCase().padEnd(5)} ${message}${extra}`;
}

let pending: string[] = [];
let flushScheduled = false;

/** Writes the lines queued for stderr now (at exit, before a fatal error's own line). */
export function flushLogs(): void {
  flushScheduled = false;
  if (pending.length === 0) return;
  const out = pending.join('');
  pending = [];
  writeSync(2, out);
}

process.on('exit', flushLogs);

/**
 * stderr, one write per event-loop turn: a write per line cost several times the line's
 * formatting under load (bench/observe.ts). A line waits at most until the turn ends.
 */
function stderrSink(line: string): void {
  pending.push(line + '\n');
  if (pending.length >= 512) flushLogs();
  else if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flushLogs);
  }
}

export function createLogger(
  level: LogLevel,
  secrets: readonly string[] = [],
  sink: (line: string) => void = stderrSink,
  format: LogFormat = 'text',
): Logger {
  const redact = makeRedactor(secrets);
  const destination = { write: (line: string) => sink(redact(format === 'json' ? line.trimEnd() : asText(line))) };
  const p = pino(
    {
      level,
      base: undefined,
      messageKey: 'message',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
  return {
    debug: (m, f) => p.debug(f ?? {}, m),
    info: (m, f) => p.info(f ?? {}, m),
    warn: (m, f) => p.warn(f ?? {}, m),
    error: (m, f) => p.error(f ?? {}, m),
    enabled: (l) => p.isLevelEnabled(l),
  };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {}, enabled: () => false };
