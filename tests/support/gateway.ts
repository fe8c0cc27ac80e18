// Starts the real gateway on loopback with a real SQLite file in a fresh temp folder.
import { Database } from 'bun:sqlite';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp, type App } from '../../src/app.ts';
import { defaultConfig, secretsOf, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import { serve } from '../../src/serve.ts';
import { createServices, type Services } from '../../src/services.ts';

export interface TestGateway {
  url: string;
  services: Services;
  app: App;
  config: Config;
  dir: string;
  logs: string[];
  /** A connection of the test's own to the gateway's SQLite file, to look into it (or make it refuse writes). */
  sqlite(): Database;
  get(path: string, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>;
  stop(): Promise<void>;
}

/** `keepFiles` leaves the database folder in place after stop(), for tests that inspect it. */
export async function startGateway(overrides: Partial<Config> = {}, opts: { keepFiles?: boolean } = {}): Promise<TestGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'cig-test-'));
  const config: Config = {
    ...defaultConfig(),
    host: '127.0.0.1',
    port: 0,
    databasePath: join(dir, 'gateway.sqlite'),
    depositPollSeconds: 0,
    rpcTimeoutMs: 2000,
    rateLimitRps: 0,
    challengesPerMinute: 0,
    ...overrides,
  };
  const logs: string[] = [];
  const log = createLogger('debug', secretsOf(config), (line) => logs.push(line), config.logFormat);
  const services = await createServices(config, log);
  const app = buildApp(services);
  // The same listener main.ts uses, access log and request metrics included.
  const listening = serve(app, log, { port: 0, hostname: '127.0.0.1', trustedProxies: config.trustedProxies });
  const url = `http://127.0.0.1:${listening.port}`;
  const read = async (res: Response) => {
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return { status: res.status, body: body as any, headers: res.headers };
  };
  let own: Database | undefined;
  return {
    url,
    services,
    app,
    config,
    dir,
    logs,
    sqlite() {
      if (config.databaseUrl) throw new Error('this gateway keeps its state in PostgreSQL');
      if (!own) {
        own = new Database(config.databasePath);
        // The gateway's own writes hold the lock for a moment at a time.
        own.run('PRAGMA busy_timeout = 5000');
      }
      return own;
    },
    get: async (path, headers = {}) => read(await fetch(url + path, { headers })),
    post: async (path, body, headers = {}) =>
      read(
        await fetch(url + path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: typeof body === 'string' ? body : JSON.stringify(body),
        }),
      ),
    async stop() {
      await services.mcp.closeAll();
      await listening.server.stop(true);
      await services.close();
      own?.close();
      if (!opts.keepFiles) rmSync(dir, { recursive: true, force: true });
    },
  };
}
