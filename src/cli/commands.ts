// Operator commands in the same binary, beside the server: `gateway stats [--json]` and
// `gateway keys list [--json] | revoke <wallet>`. They open the server's database directly (WAL
// mode lets them read while it runs) and never migrate it: a database the server has not created
// is an error, not something to make.
import { Database } from 'bun:sqlite';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { and, eq, isNull } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/bun-sqlite';
import { base58Bytes } from '../chain/base58.ts';
import { ConfigError, loadConfig } from '../config.ts';
import type { Db } from '../db/client.ts';
import * as schema from '../db/schema.ts';
import { collectStats, listKeys, statsText } from './stats.ts';

export const COMMANDS = ['stats', 'keys'] as const;

export const COMMANDS_HELP = [
  'Operator commands (read the same DATABASE_PATH, also while the server runs):',
  '  gateway stats [--json]             keys, deposits, credit outstanding, revenue by day, calls by capability, top wallets',
  '  gateway keys list [--json]         every key: id (first 12 hex digits of its SHA-256), wallet, created, revoked',
  '  gateway keys revoke <wallet>       revokes the wallet\'s live keys (its credit stays with the wallet)',
  '',
].join('\n');

class UsageError extends Error {}

function open(path: string, write: boolean): Db {
  const file = resolve(path);
  if (!existsSync(file)) throw new UsageError(`DATABASE_PATH / --database-path: no database at ${JSON.stringify(file)} (start the gateway once to create it)`);
  const client = new Database(file, write ? { readwrite: true, strict: true } : { readonly: true, strict: true });
  client.run('PRAGMA busy_timeout = 5000');
  return drizzle({ client, schema }) as Db;
}

/** Runs one command; returns the exit code. Errors are one line on stderr. */
export function runCommand(argv: string[], env: Record<string, string | undefined>, out: (s: string) => void, err: (s: string) => void): number {
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
      const db = open(config.databasePath, false);
      const stats = collectStats(db);
      db.$client.close();
      out(json ? JSON.stringify(stats, null, 2) + '\n' : statsText(stats));
      return 0;
    }
    const [sub, wallet] = positional;
    if (sub === 'list') {
      const db = open(config.databasePath, false);
      const keys = listKeys(db);
      db.$client.close();
      out(json ? JSON.stringify(keys, null, 2) + '\n' : keys.map((k) => `${k.keyId}  ${k.wallet.padEnd(44)}  ${k.createdAt}  ${k.revokedAt ? `revoked ${k.revokedAt}` : 'active'}`).join('\n') + (keys.length ? '\n' : ''));
      return 0;
    }
    if (sub === 'revoke') {
      const bytes = wallet ? base58Bytes(wallet, 32) : undefined;
      if (!wallet || !bytes || bytes.length !== 32) throw new UsageError(`keys revoke needs a base58 wallet address, got ${JSON.stringify((wallet ?? '').slice(0, 60))}`);
      const db = open(config.databasePath, true);
      const revoked = db
        .update(schema.apiKeys)
        .set({ revokedAt: Date.now() })
        .where(and(eq(schema.apiKeys.wallet, wallet), isNull(schema.apiKeys.revokedAt)))
        .returning({ keyHash: schema.apiKeys.keyHash })
        .all();
      db.$client.close();
      out(json ? JSON.stringify({ wallet, revoked: revoked.length }) + '\n' : `revoked ${revoked.length} key(s) of ${wallet}\n`);
      return 0;
    }
    throw new UsageError(`keys needs list or revoke <wallet>, got ${JSON.stringify((sub ?? '').slice(0, 60))}`);
  } catch (e) {
    if (e instanceof ConfigError || e instanceof UsageError) {
      err(`gateway ${command}: ${e instanceof ConfigError ? 'invalid setting: ' : ''}${e.message}\n`);
      return 2;
    }
    throw e;
  }
}
