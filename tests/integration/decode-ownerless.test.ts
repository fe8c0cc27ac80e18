// Token balances without owners, as nodes answered them before 2022, decoded through the gateway: the sandbox
// chain answers getTransaction without `owner` (its ownerlessTokenBalances fault mode), real token transfers
// run on it, and decode-tx finds each owner from the transaction itself, else from the account as the chain
// holds it now (one getMultipleAccounts, cached), else says the owner is unknown.
import { beforeAll, describe, expect, test } from 'bun:test';
import { findAssociatedTokenPda, getCloseAccountInstruction, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { generateKeyPairSigner, type Address, type Instruction, type KeyPairSigner } from '@solana/kit';
import { fundedKey } from '../support/agent.ts';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import { signedTransaction } from '../support/sandbox/testing.ts';
import type { TestGateway } from '../support/gateway.ts';

const env = sandboxGateways({
  mint: true,
  defaults: async () => ({ gatewayAddress: (await generateKeyPairSigner()).address, webhookSecret: 'whsec_owners', freeCalls: 0 }),
});
let gw: TestGateway;
let H: Record<string, string>;
let sender: KeyPairSigner;
let receiver: KeyPairSigner;
let senderAta: Address;
let receiverAta: Address;

const ata = async (owner: Address) => (await findAssociatedTokenPda({ owner, mint: env.mint, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0];

/** A bare transferChecked between existing accounts: the instruction names the source's authority, not the destination's owner. */
async function transfer(from: KeyPairSigner, source: Address, destination: Address, amount: bigint, close = false): Promise<string> {
  const ixs: Instruction[] = [getTransferCheckedInstruction({ source, mint: env.mint, destination, authority: from, amount, decimals: 6 })];
  if (close) ixs.push(getCloseAccountInstruction({ account: source, destination: from.address, owner: from }));
  const sent = await env.chain.send(await signedTransaction(env.chain.url, from, ixs));
  expect(sent.err).toBeNull();
  return sent.signature;
}

async function decode(gateway: TestGateway, signature: string) {
  env.chain.fault({ mode: 'ownerlessTokenBalances' }, { methods: ['getTransaction'] });
  const res = await gateway.get(`/api/chain/decode-tx?signature=${signature}&network=mainnet-beta`, H);
  env.chain.fault(null);
  expect(res.status).toBe(200);
  return res.body;
}

beforeAll(async () => {
  gw = await env.gateway();
  H = { 'x-api-key': (await fundedKey(gw, env.chain, 20 * 2_200_000)).key };
  sender = await env.chain.newWallet();
  receiver = await env.chain.newWallet();
  await env.chain.mintTo(env.mint, env.chain.payer, sender.address, 5_000_000n);
  await env.chain.createAta(receiver.address, env.mint);
  [senderAta, receiverAta] = [await ata(sender.address), await ata(receiver.address)];
});

describe('owners of owner-less token balances', () => {
  test('the node sends no owner; the transfer authority names the sender, the chain names the receiver, in one read for two decodes', async () => {
    const signature = await transfer(sender, senderAta, receiverAta, 1_500_000n);
    env.chain.resetCalls();
    for (let i = 0; i < 2; i++) {
      const body = await decode(gw, signature);
      expect(body.summary).toBe(`Sent 1.5 ${env.mint.slice(0, 6)}…${env.mint.slice(-4)} to ${receiver.address.slice(0, 6)}…${receiver.address.slice(-4)}`);
      const byOwner = Object.fromEntries(body.ownerChanges.map((o: any) => [o.owner, o.changes.map((c: any) => c.raw)]));
      expect(byOwner).toEqual({ [sender.address]: ['-1500000'], [receiver.address]: ['1500000'] });
      expect(body.accountChanges.map((a: any) => [a.address, a.token?.owner ?? null])).toEqual(
        expect.arrayContaining([
          [senderAta, sender.address],
          [receiverAta, receiver.address],
        ]),
      );
    }
    // only the receiver's account was asked about, once: the second decode read it from the cache
    expect(env.chain.calls('getMultipleAccounts')).toBe(1);
  });

  test('an account closed since is no longer anyone’s on chain: its owner is said to be unknown, never "no balance change"', async () => {
    const signature = await transfer(sender, senderAta, receiverAta, 250_000n);
    // the receiver empties and closes its account: the chain no longer holds who owned it
    await transfer(receiver, receiverAta, senderAta, 1_750_000n, true);
    const fresh = await env.gateway(); // a cold cache, so the account is read as it is now
    H = { 'x-api-key': (await fundedKey(fresh, env.chain, 5 * 2_200_000)).key };
    const body = await decode(fresh, signature);
    expect(body.ownerChanges.map((o: any) => o.owner)).toEqual([sender.address]);
    expect(body.summary).toContain(`token account ${receiverAta.slice(0, 6)}…${receiverAta.slice(-4)} (owner unknown) received 0.25`);
    expect(body.summary).not.toContain('no balance change');
  });
});
