// CLI entry: flags/env -> config -> database -> listen; graceful shutdown on SIGINT/SIGTERM.
import { buildApp } from './app.ts';
import { checkDatabasePath, ConfigError, helpText, loadConfig, secretsOf } from './config.ts';
import { commandHelp, commandsHelp, COMMANDS, runCommand, unknownCommand } from './cli/commands.ts';
import { VERSION } from './version.ts';
import { createLogger, flushLogs, logsWritten, routeConsole } from './log.ts';
import { serve, type Listening } from './serve.ts';
import { createServices } from './services.ts';

async function main() {
  const argv = process.argv.slice(2);
  // Wrapped to the terminal; 80 columns when the text goes to a file or a pipe.
  const width = process.stdout.isTTY && process.stdout.columns > 0 ? process.stdout.columns : 80;
  const help = argv.includes('--help') || argv.includes('-h');
  const command = COMMANDS.find((c) => c === argv[0]);
  // The server takes only settings (--flag value): a first word that is no flag names a command.
  if (argv[0] !== undefined && !argv[0].startsWith('-') && !command) {
    process.stderr.write(unknownCommand(argv[0], width));
    process.exit(2);
  }
  if (help) {
    process.stdout.write(command ? commandHelp(command, width) : helpText(width) + '\n' + commandsHelp(width));
    return;
  }
  if (command) {
    process.exit(await runCommand(argv, process.env, (s) => process.stdout.write(s), (s) => process.stderr.write(s)));
  }
  if (argv.includes('--version')) {
    process.stdout.write(VERSION + '\n');
    return;
  }
  let config;
  try {
    config = loadConfig(argv, process.env);
    checkDatabasePath(config);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`gateway: invalid setting: ${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  // Elysia hides validation internals only in production mode.
  process.env.NODE_ENV ??= 'production';
  const log = createLogger(config.logLevel, secretsOf(config), undefined, config.logFormat, config.logBufferBytes);
  routeConsole(log);
  let services;
  try {
    services = await createServices(config, log);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`gateway: invalid setting: ${e.message}\n`);
      process.exit(2);
    }
    log.error('cannot open the database', { error: e instanceof Error ? e.message : String(e) });
    process.exit(1);
  }
  const app = buildApp(services);
  let listening: Listening;
  try {
    listening = serve(app, log, { port: config.port, hostname: config.host, trustedProxies: config.trustedProxies });
  } catch (e) {
    log.error(`cannot listen on ${config.host}:${config.port}`, { error: e instanceof Error ? e.message : String(e) });
    await services.close();
    process.exit(1);
  }
  const port = listening.port;
  log.info(`gateway ${VERSION} listening`, { url: `http://${config.host}:${port}`, database: config.databaseUrl ? 'postgres' : config.databasePath });
  if (config.gatewayAddress) {
    log.info('deposits enabled', {
      payTo: config.gatewayAddress,
      network: config.paymentNetwork,
      watcher: config.depositPollSeconds > 0 ? `every ${config.depositPollSeconds} s` : 'off',
      webhook: config.webhookSecret ? 'on' : 'off',
    });
  } else {
    log.warn('deposits are not configured (GATEWAY_ADDRESS unset): free endpoints work, paid calls cannot be bought');
  }
  if (services.x402) {
    const facilitator = services.x402.facilitator;
    log.info('x402 enabled', {
      price: config.x402Price,
      pricedApart: Object.entries(config.x402Prices).map(([name, units]) => `${name}=${units}`).join(',') || 'none',
      asset: config.x402Asset,
      payTo: config.x402PayTo ?? config.gatewayAddress,
      network: config.paymentNetwork,
      facilitator: facilitator.kind,
      feePayer: facilitator.kind === 'built-in' ? await facilitator.feePayer() : 'read from the facilitator',
    });
  }
  services.watcher?.start(config.depositPollSeconds);
  services.readiness.start();

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) {
      // A second signal means now: skip the rest of the drain.
      log.warn('second signal: stopping without waiting', { signal });
      flushLogs();
      process.exit(1);
    }
    stopping = true;
    log.info('shutting down', { signal, drainSeconds: config.drainSeconds });
    services.stopping = true; // /readyz answers 503 from now on
    // Stop accepting, then end the event streams (they would hold the drain open until its limit).
    const drained = listening.stop(config.drainSeconds * 1000);
    await services.mcp.closeAll();
    const outcome = await drained;
    // The ledger settles what the finished requests queued, then the database closes.
    await services.close();
    log.info('stopped', { drain: outcome });
    // Lines still queued for a slow stderr reader get a moment; a reader that stopped loses them.
    await logsWritten(1000);
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

try {
  await main();
} catch (e) {
  flushLogs();
  // An operator reads one line, not a minified stack.
  process.stderr.write(`gateway: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]!.slice(0, 500)}\n`);
  process.exit(1);
}
