// Gateway processes started from the CLI entry, as an operator runs several replicas on one
// database. Used by the replica tests and bench/replicas.ts.
import { expect } from 'bun:test';
import type { Address, KeyPairSigner } from '@solana/kit';
import { claimWhenSeen, deposit, heliusPayload } from './agent.ts';
import type { Sandbox } from './sandbox/index.ts';
import { eachLine, freePort, MAIN, waitForHealthy } from './process.ts';


export interface Replica {
  url: string;
  pid: number;
  /** Log lines so far (JSON lines on stderr). */
  logs: string[];
  /** Resolves with the exit code. */
  exited: Promise<number>;
  /** SIGKILL: no shutdown, no cleanup, connections dropped by the kernel. */
  kill9(): Promise<void>;
  stop(): Promise<void>;
}

export async function startReplica(env: Record<string, string>, timeoutMs = 60_000): Promise<Replica> {
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = Bun.spawn(['bun', MAIN], { env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'info', ...env }, stdout: 'ignore', stderr: 'pipe' });
  const logs: string[] = [];
  void eachLine(proc.stderr, (line) => logs.push(line));
  await waitForHealthy(url, { ms: timeoutMs, proc, why: () => logs.join('\n') }).catch((e) => {
    proc.kill(9);
    throw e;
  });
  return {
    url,
    pid: proc.pid,
    logs,
    exited: proc.exited,
    async kill9() {
      proc.kill(9);
      await proc.exited;
    },
    async stop() {
      if (proc.exitCode !== null) return;
      proc.kill('SIGTERM');
      await proc.exited;
    },
  };
}

export async function http(url: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) {
  const res = await fetch(url + path, {
    method: init.method ?? 'GET',
    headers: { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body, headers: res.headers };
}

/** The get/post shape tests/support/agent.ts expects, for one replica. */
export function clientOf(url: string) {
  return {
    get: (path: string, headers: Record<string, string> = {}) => http(url, path, { headers }),
    post: (path: string, body: unknown, headers: Record<string, string> = {}) => http(url, path, { method: 'POST', body, headers }),
  };
}

/**
 * What every replica of a test shares: one database, the sandbox chain, the deposit address and the
 * webhook secret, no free calls, and no challenge budget (claimWhenSeen asks for a challenge every
 * ~100 ms until the deposit is seen: a slow takeover on a busy machine used up the per-address
 * budget of 10 a minute before the credit). `more` adds or overrides settings.
 */
export function replicaEnv(shared: { databaseUrl: string; chainUrl: string; gatewayAddress: string; webhookSecret: string }, more: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: shared.databaseUrl,
    MAINNET_RPC_URLS: shared.chainUrl,
    DEVNET_RPC_URLS: shared.chainUrl,
    GATEWAY_ADDRESS: shared.gatewayAddress,
    WEBHOOK_SECRET: shared.webhookSecret,
    FREE_CALLS: '0',
    CHALLENGES_PER_MINUTE: '0',
    ...more,
  };
}

/** A new wallet with `lamports` of credit: its deposit reported by webhook to `via`, its key claimed on `claimOn`. */
export async function fundedAcross(
  chain: Sandbox,
  replicas: { via: Replica; claimOn: Replica },
  gatewayAddress: Address,
  webhookSecret: string,
  lamports: number,
): Promise<{ key: string; agent: KeyPairSigner }> {
  const agent = await chain.newWallet(BigInt(lamports) + 1_000_000_000n);
  const sig = await deposit(chain, agent, gatewayAddress, BigInt(lamports));
  const hook = await http(replicas.via.url, '/api/payments/webhook', { method: 'POST', body: heliusPayload(sig, agent.address, gatewayAddress, lamports), headers: { authorization: webhookSecret } });
  expect(hook.status).toBe(200);
  return { key: await claimWhenSeen(clientOf(replicas.claimOn.url), agent, 5_000), agent };
}
