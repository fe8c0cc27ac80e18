// The claim page's server side: the page and its script come from the gateway itself, and the
// deposit-status route says only what the page needs, refuses bad input and is rate limited.
import { beforeAll, describe, expect, test } from 'bun:test';
import { generateKeyPairSigner, type Address } from '@solana/kit';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { claim, deposit, heliusPayload } from '../support/agent.ts';

const SECRET = 'claim-page-secret';
const sandbox = sandboxGateways();
let gw: TestGateway;
let gatewayAddress: Address;

beforeAll(async () => {
  gatewayAddress = (await generateKeyPairSigner()).address;
  // The watcher is built (not started): the test polls it, as small transfers are only its to sum.
  gw = await sandbox.gateway({ gatewayAddress, webhookSecret: SECRET, depositPollSeconds: 60 });
});

const status = (wallet: string) => gw.get(`/api/keys/deposit?wallet=${wallet}`);

async function depositSeen(lamports: number) {
  const agent = await sandbox.chain.newWallet(1_000_000_000n);
  const sig = await deposit(sandbox.chain, agent, gatewayAddress, BigInt(lamports));
  expect((await gw.post('/api/payments/webhook', heliusPayload(sig, agent.address, gatewayAddress, lamports), { authorization: SECRET })).status).toBe(200);
  return agent;
}

describe('GET /claim', () => {
  test('is a page whose only script is served by the gateway, under a policy allowing no other host', async () => {
    const res = await fetch(gw.url + '/claim');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    const html = await res.text();
    expect(html).not.toMatch(/(src|href)="https?:/);
    const scripts = [...html.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts).toHaveLength(1);
    const js = await fetch(gw.url + scripts[0]);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toContain('javascript');
    expect(await js.text()).toContain('wallet-standard:app-ready');
    // The facts the page shows come from the configuration.
    expect(html).toContain(`"gatewayAddress":"${gatewayAddress}"`);
  });
});

describe('GET /api/keys/deposit', () => {
  test('none, then claimable after a deposit, then none once claimed; never an amount', async () => {
    const agent = await sandbox.chain.newWallet(1_000_000_000n);
    expect((await status(agent.address)).body).toEqual({ wallet: agent.address, status: 'none', minDepositLamports: gw.config.minDepositLamports });
    const sig = await deposit(sandbox.chain, agent, gatewayAddress, 5_000_000n);
    await gw.post('/api/payments/webhook', heliusPayload(sig, agent.address, gatewayAddress, 5_000_000), { authorization: SECRET });
    const seen = await status(agent.address);
    expect(seen.body.status).toBe('claimable');
    expect(JSON.stringify(seen.body)).not.toContain('5000000');
    expect((await claim(gw, agent)).status).toBe(200);
    expect((await status(agent.address)).body.status).toBe('none');
  });

  test('transfers below the minimum say so, until together they reach it', async () => {
    const small = await sandbox.chain.newWallet(1_000_000_000n);
    await deposit(sandbox.chain, small, gatewayAddress, 1_000_000n);
    await gw.services.watcher!.poll();
    expect((await status(small.address)).body.status).toBe('below_minimum');
    await deposit(sandbox.chain, small, gatewayAddress, 1_200_000n);
    await gw.services.watcher!.poll();
    expect((await status(small.address)).body.status).toBe('claimable');
  });

  test('bad wallets are 400 with a hint and change nothing', async () => {
    for (const w of ['', 'abc', '0OIl', 'x'.repeat(100), encodeURIComponent('<script>')]) {
      const res = await status(w);
      expect(res.status, w).toBe(400);
      expect(res.body.hint).toContain('/api/keys/deposit?wallet=');
    }
    expect((await gw.get('/api/keys/deposit')).status).toBe(400);
  });

  test('a claim answer is never cached', async () => {
    const agent = await depositSeen(3_000_000);
    const res = await claim(gw, agent);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
});

test('the deposit-status route is rate limited per client like the other key routes', async () => {
  const limited = await startGateway({ rateLimitRps: 1, rateLimitBurst: 3 });
  try {
    const wallet = (await generateKeyPairSigner()).address;
    const codes: number[] = [];
    for (let i = 0; i < 6; i++) codes.push((await limited.get(`/api/keys/deposit?wallet=${wallet}`)).status);
    expect(codes.slice(0, 3)).toEqual([200, 200, 200]);
    expect(codes.slice(3)).toContain(429);
  } finally {
    await limited.stop();
  }
});
