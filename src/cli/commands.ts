// Operator commands in the same binary, beside the server: `gateway stats [--json]` and
// `gateway keys list [--json] | revoke <wallet> [--json]`, each with its own --help. They open the server's database directly
// (src/cli/database.ts) and name it in what they print: with a relative DATABASE_PATH, the working
// directory decides which file that is.
import { base58Bytes } from '../chain/base58.ts';
import { ConfigError, helpColumns, loadConfig, wrapText, type Config } from '../config.ts';
import { openOperatorDb, OperatorError, type OperatorDb } from './database.ts';
import { storageFault } from '../db/faults.ts';
import { collectStats, keysText, listKeys, revokeKeys, statsText } from './stats.ts';
import { counted } from './counted.ts';
import { listWatches, watchesText, type WatchFilter } from '../watch/cli.ts';

export const COMMANDS = ['stats', 'keys', 'watches'] as const;

/** Each command: its usage line and what it does, for `gateway --help` and `gateway <command> --help`. */
const USAGE = {
  stats: [['gateway stats [--json]', 'keys, deposits, credit outstanding, revenue by day, calls by capability, top wallets']],
  keys: [
    ['gateway keys list [--json]', "every key: id (first 12 hex digits of its SHA-256), wallet, created, the wallet's credit and free calls, revoked (when, and by a newer claim or the operator)"],
    ['gateway keys revoke <wallet> [--json]', "revokes the wallet's live keys (its credit stays with the wallet); exit 1 when it has none"],
  ],
  watches: [['gateway watches [list | failing | wallet <w>] [--json]', "watches: all, those whose webhook is failing, or one key's wallet's; status, webhook host, deliveries pending, last error"]],
} as const satisfies Record<(typeof COMMANDS)[number], readonly (readonly [string, string])[]>;

const DATABASE_NOTE = 'They read the database the server uses: DATABASE_URL if set, else DATABASE_PATH (or --database-url, --database-path), also while it runs. Each names the database it read (a PostgreSQL password masked) and says when it is empty.';

/** What `gateway --help` prints about the commands, laid out for a terminal `width` columns wide. */
export function commandsHelp(width = 80): string {
  return [
    ...wrapText('Operator commands (`gateway <command> --help` for one):', width),
    ...helpColumns(Object.values(USAGE).flat(), width),
    ...wrapText(DATABASE_NOTE, width),
    '',
  ].join('\n');
}

/** One command's help: its usage lines and where it reads. */
export function commandHelp(command: (typeof COMMANDS)[number], width = 80): string {
  return [...helpColumns(USAGE[command], width), '', ...wrapText(DATABASE_NOTE, width), ''].join('\n');
}

/** What an unknown command hears: the commands there are. */
export function unknownCommand(word: string, width = 80): string {
  return [
    ...wrapText(`gateway: unknown command ${JSON.stringify(word.slice(0, 60))}. The commands:`, width),
    ...helpColumns([['gateway [settings]', 'runs the server (gateway --help lists every setting)'], ...Object.values(USAGE).flat()], width),
    '',
  ].join('\n');
}

class UsageError extends Error {}

/** Runs one command; returns the exit code. Errors are one line on stderr. */
export async function runCommand(argv: string[], env: Record<string, string | undefined>, out: (s: string) => void, err: (s: string) => void): Promise<number> {
  const [command, ...rest] = argv;
  const json = rest.includes('--json');
  const positional: string[] = [];
  const flags: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === '--json') continue;
    if (a.startsWith('--')) {
      flags.push(a);
      if (!a.includes('=') && i + 1 < rest.length) flags.push(rest[++i]!);
    } else positional.push(a);
  }
  try {
    const config = loadConfig(flags, env);
    if (command === 'stats') {
      if (positional.length) throw new UsageError(`stats takes no argument, got ${JSON.stringify(positional[0]!.slice(0, 60))}`);
      const stats = await withDb(config, false, collectStats);
      out(json ? JSON.stringify(stats, null, 2) + '\n' : statsText(stats));
      return 0;
    }
    const [sub, wallet] = positional;
    if (command === 'watches') {
      const failingAfterMs = config.webhookFailingAfterSeconds * 1000;
      let filter: WatchFilter;
      if (sub === undefined || sub === 'list') filter = { kind: 'all' };
      else if (sub === 'failing') filter = { kind: 'failing', failingAfterMs, now: Date.now() };
      else if (sub === 'wallet' && wallet && base58Bytes(wallet, 32)?.length === 32) filter = { kind: 'wallet', wallet };
      else throw new UsageError(`watches takes list, failing or wallet <base58 wallet>, got ${JSON.stringify(positional.join(' ').slice(0, 60))}`);
      const [database, watches] = await withDb(config, false, async (db) => [db.name, await listWatches(db, filter, failingAfterMs)] as const);
      out(json ? JSON.stringify(watches, null, 2) + '\n' : watchesText(database, watches));
      return 0;
    }
    if (sub === 'list') {
      const [database, keys] = await withDb(config, false, async (db) => [db.name, await listKeys(db)] as const);
      // JSON stays the bare list scripts read; which database it came from goes beside it, on stderr.
      if (json) {
        out(JSON.stringify(keys, null, 2) + '\n');
        err(`gateway keys list: ${counted(keys.length, 'key')} in ${database}\n`);
      } else out(keysText(database, keys));
      return 0;
    }
    if (sub === 'revoke') {
      const bytes = wallet ? base58Bytes(wallet, 32) : undefined;
      if (!wallet || !bytes || bytes.length !== 32) throw new UsageError(`keys revoke needs a base58 wallet address, got ${JSON.stringify((wallet ?? '').slice(0, 60))}`);
      const [database, revoked] = await withDb(config, true, async (db) => [db.name, await revokeKeys(db, wallet, Date.now())] as const);
      if (json) out(JSON.stringify({ database, wallet, revoked }) + '\n');
      // Nothing to revoke is a failure: a mistyped wallet must not read as done.
      if (revoked === 0) {
        err(`gateway keys revoke: no live key of ${wallet} in ${database}: nothing revoked\n`);
        return 1;
      }
      if (!json) out(`revoked ${counted(revoked, 'key')} of ${wallet} in ${database}\n`);
      return 0;
    }
    throw new UsageError(`keys needs list or revoke <wallet>, got ${JSON.stringify((sub ?? '').slice(0, 60))}`);
  } catch (e) {
    if (e instanceof ConfigError || e instanceof UsageError) {
      err(`gateway ${command}: ${e instanceof ConfigError ? 'invalid setting: ' : ''}${e.message}\n`);
      return 2;
    }
    if (e instanceof OperatorError) {
      err(`gateway ${command}: ${e.message}\n`);
      return e.exitCode;
    }
    // Full, read-only, locked or unreachable: a command's write either committed whole or not at all.
    const fault = storageFault(e);
    if (fault) {
      err(`gateway ${command}: the database is not answering (${fault}): nothing was changed; retry once it answers\n`);
      return 1;
    }
    throw e;
  }
}

async function withDb<T>(config: Config, write: boolean, use: (db: OperatorDb) => Promise<T>): Promise<T> {
  const db = openOperatorDb(config, write);
  try {
    return await use(db);
  } finally {
    await db.close();
  }
}
