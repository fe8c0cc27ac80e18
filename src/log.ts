// Line-per-event logger on stderr, built on pino (synchronous destination: no worker thread, so it
// runs inside the single compiled binary). `json` writes one object per line with level, time,
// message and the fields; `text` renders the same record for a terminal. Every line passes through
// the redactor, so a secret that slips into a message or a field (an RPC URL with ?api-key=, a
// webhook secret, an API key) never reaches the log.
import { writeSync } from 'node:fs';
import { format as formatArgs } from 'node:util';
import pino from 'pino';
import type { LogFormat, LogLevel } from './config.ts';
import { logLinesDropped } from './metrics.ts';

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** Whether lines at `level` are written: lets a caller skip gathering fields nobody will see. */
  enabled(level: LogLevel): boolean;
  /** The shape of a line, for a caller that builds its own (access-log.ts). */
  readonly format: LogFormat;
  /**
   * Writes a line the caller built in `format`, as is: no redaction, so only for lines whose every
   * value comes from a closed set or was checked (the access line).
   */
  line(text: string): void;
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
    // A value of many lines (a library's stack) stays on the line, escaped.
    .map(([k, v]) => ` ${k}=${typeof v === 'string' && !v.includes('\n') ? v : JSON.stringify(v)}`)
    .join('');
  return `${time} ${String(level).toUpperCase().padEnd(5)} ${message}${extra}`;
}

/**
 * Most characters of log lines held for a stderr nobody drains (LOG_BUFFER_BYTES). A reader that
 * stops costs this much memory at most; beyond it lines are dropped and counted
 * (gateway_log_lines_dropped_total), and no request waits for stderr.
 */
let bufferChars = 4 * 1024 * 1024;

const dropped = logLinesDropped.series({});
let sink: ReturnType<typeof Bun.stderr.writer> | undefined;
let pending: string[] = [];
let pendingChars = 0;
/** Characters handed to stderr whose write has not finished: a pipe that is full takes them later. */
let inFlight = 0;
let scheduled = false;

const written = () => {
  inFlight = 0;
  if (pending.length > 0) writeOut();
};

/**
 * Hands the queued lines to stderr as one write that never blocks: Bun's writer takes what the pipe
 * accepts now and the rest when the reader drains it. Until then later lines queue behind it.
 */
function writeOut(): void {
  scheduled = false;
  if (inFlight > 0 || pending.length === 0) return;
  const out = pending.join('');
  pending = [];
  pendingChars = 0;
  try {
    sink ??= Bun.stderr.writer();
    sink.write(out);
    const flushed = sink.flush();
    if (flushed instanceof Promise) {
      inFlight = out.length;
      flushed.then(written, written);
    }
  } catch {
    // stderr is gone (closed pipe): nothing can be written, and nothing should fail for it.
    dropped.add(out.split('\n').length - 1);
  }
}

/**
 * Writes what is queued for stderr now (at exit, before a fatal error's own line). Bun's writer has
 * made stderr non-blocking, so a full pipe refuses (EAGAIN): the write is retried for a moment,
 * then what is left is lost. A write still waiting for a slow reader would be overtaken: the queue
 * stays behind it.
 */
export function flushLogs(): void {
  scheduled = false;
  if (inFlight > 0 || pending.length === 0) return;
  let out = Buffer.from(pending.join(''));
  pending = [];
  pendingChars = 0;
  const until = performance.now() + 1000;
  while (out.length > 0 && performance.now() < until) {
    try {
      out = out.subarray(writeSync(2, out));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') return;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
  }
}

process.on('exit', flushLogs);

/** Resolves once every queued line was written, or after `ms` (a stderr nobody reads). */
export async function logsWritten(ms: number): Promise<void> {
  const until = performance.now() + ms;
  writeOut();
  while ((inFlight > 0 || pending.length > 0) && performance.now() < until) {
    await Bun.sleep(5);
    writeOut();
  }
}

/** How long a line may wait for the lines after it, so that stderr gets one write for many. */
const BATCH_MS = 10;
const BATCH_CHARS = 64 * 1024;

/**
 * stderr, one write per batch: a write to a pipe costs a few µs, as much as a whole cached call,
 * so one per event-loop turn (a few requests under load) cost the access log more than its lines
 * (a CPU profile under wrk). A line waits at most BATCH_MS, or behind a write the reader has not
 * taken yet.
 */
function stderrSink(line: string): void {
  if (pendingChars + inFlight + line.length + 1 > bufferChars) {
    dropped.add();
    return;
  }
  pending.push(line + '\n');
  pendingChars += line.length + 1;
  if (pendingChars >= BATCH_CHARS) writeOut();
  else if (!scheduled) {
    scheduled = true;
    setTimeout(writeOut, BATCH_MS).unref();
  }
}

export function createLogger(
  level: LogLevel,
  secrets: readonly string[] = [],
  sink: (line: string) => void = stderrSink,
  format: LogFormat = 'text',
  stderrBufferBytes?: number,
): Logger {
  if (stderrBufferBytes !== undefined) bufferChars = stderrBufferBytes;
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
    format,
    line: sink,
  };
}

const CONSOLE_LEVELS = { error: 'error', warn: 'warn', info: 'info', log: 'info', debug: 'debug', trace: 'debug' } as const;

/**
 * What a dependency writes with console.* (e.g. @x402/svm's `console.error("Failed to send
 * transaction:", error)`, a stack of many lines) becomes one line of the log, with its level,
 * through the redactor: nothing reaches stdout or stderr past it. The message is the first line;
 * the whole text is the `output` field.
 */
export function routeConsole(log: Logger): void {
  for (const [method, level] of Object.entries(CONSOLE_LEVELS) as [keyof typeof CONSOLE_LEVELS, LogLevel][]) {
    console[method] = (...args: unknown[]) => {
      if (!log.enabled(level)) return;
      const text = formatArgs(...args);
      const first = text.split('\n', 1)[0]!.slice(0, 200);
      log[level](`library: ${first}`, { event: 'console', console: method, ...(text !== first ? { output: text } : {}) });
    };
  }
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {}, enabled: () => false, format: 'text', line() {} };
