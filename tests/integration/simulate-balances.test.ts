// simulate's balance changes against the truth: the same transaction, simulated through the gateway and
// then executed on the sandbox chain (real System, Token and ATA programs), must report the same
// per-owner changes that decode-tx reads from the executed transaction. Legacy and v0 with a lookup table.
import { beforeAll, describe, expect, test } from 'bun:test';
import { getTransferSolInstruction } from '@solana-program/system';
import { findAssociatedTokenPda, getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import {
  address,
  appendTransactionMessageInstructions,
  compressTransactionMessageUsingAddressLookupTables,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getAddressEncoder,
  getBase64EncodedWireTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';
import { sandboxGateways } from '../support/sandbox-gateways.ts';
import type { TestGateway } from '../support/gateway.ts';
import { fundedKey } from '../support/agent.ts';
import { answerShapeProblems } from '../support/answer-rules.ts';

const PRICE = 2_200_000;
const TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';

const sandbox = sandboxGateways();
let gw: TestGateway;
let H: Record<string, string>;

beforeAll(async () => {
  const gatewayAddress = (await generateKeyPairSigner()).address;
  gw = await sandbox.gateway({ gatewayAddress, webhookSecret: 'whsec_sim', freeCalls: 0 });
  const { key } = await fundedKey(gw, sandbox.chain, 50 * PRICE);
  H = { 'x-api-key': key };
});

/** An active lookup table holding `entries`, written straight into the sandbox's accounts. */
async function lookupTable(authority: Address, entries: Address[]): Promise<Address> {
  const table = (await generateKeyPairSigner()).address;
  const data = new Uint8Array(56 + 32 * entries.length);
  const view = new DataView(data.buffer);
  view.setUint32(0, 1, true);
  view.setBigUint64(4, 2n ** 64n - 1n, true);
  data[21] = 1;
  data.set(getAddressEncoder().encode(authority), 22);
  entries.forEach((e, i) => data.set(getAddressEncoder().encode(e), 56 + 32 * i));
  sandbox.chain.svm.setAccount({ address: table, data, executable: false, lamports: lamports(10_000_000n), programAddress: address('AddressLookupTab1e1111111111111111111111111'), space: BigInt(data.length) });
  return table;
}

interface Scenario {
  alice: KeyPairSigner;
  bob: KeyPairSigner;
  carol: Address;
  mint: Address;
  instructions: Instruction[];
}

/** Alice (fee payer) pays carol 0.25 SOL and opens alice's token account; bob (second signer) sends alice 1.5 tokens. */
async function scenario(): Promise<Scenario> {
  const alice = await sandbox.chain.newWallet(2_000_000_000n);
  const bob = await sandbox.chain.newWallet(1_000_000_000n);
  const carol = (await generateKeyPairSigner()).address;
  const mint = await sandbox.chain.createMint({ authority: sandbox.chain.payer, decimals: 6 });
  await sandbox.chain.mintTo(mint, sandbox.chain.payer, bob.address, 5_000_000n);
  const [aliceAta] = await findAssociatedTokenPda({ owner: alice.address, mint, tokenProgram: address(TOKEN) });
  const [bobAta] = await findAssociatedTokenPda({ owner: bob.address, mint, tokenProgram: address(TOKEN) });
  const instructions = [
    getTransferSolInstruction({ source: alice, destination: carol, amount: 250_000_000n }),
    getCreateAssociatedTokenIdempotentInstruction({ payer: alice, ata: aliceAta, owner: alice.address, mint, tokenProgram: address(TOKEN) }),
    getTransferCheckedInstruction({ source: bobAta, mint, destination: aliceAta, authority: bob, amount: 1_500_000n, decimals: 6 }),
  ];
  return { alice, bob, carol, mint, instructions };
}

async function build(s: Scenario, version: 'legacy' | 0, tables: Record<Address, Address[]> = {}) {
  const { value: latest } = await createSolanaRpc(sandbox.chain.url).getLatestBlockhash().send();
  const message = pipe(
    createTransactionMessage({ version }),
    (m) => setTransactionMessageFeePayerSigner(s.alice, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
    (m) => appendTransactionMessageInstructions(s.instructions, m),
  );
  const compressed = version === 0 ? compressTransactionMessageUsingAddressLookupTables(message as never, tables) : message;
  return signTransactionMessageWithSigners(compressed as typeof message);
}

/** Owner -> asset -> raw change, the comparable core of ownerChanges. */
function byOwner(ownerChanges: any[]): Record<string, Record<string, string>> {
  return Object.fromEntries(ownerChanges.map((o) => [o.owner, Object.fromEntries(o.changes.map((c: any) => [c.asset, `${c.raw}/${c.decimals}`]))]));
}

describe('simulate reports what the transaction will move', () => {
  test.each([
    ['legacy', 'legacy' as const],
    ['v0 with a lookup table holding the SOL recipient', 0 as const],
  ])('%s: the simulated changes equal the executed ones, for both signers', async (_name, version) => {
    const s = await scenario();
    const tables = version === 0 ? { [await lookupTable(s.alice.address, [s.carol])]: [s.carol] } : {};
    const tx = await build(s, version, tables);
    const wire = getBase64EncodedWireTransaction(tx);

    const sim = await gw.post('/api/chain/simulate', { transaction: wire }, H);
    expect(sim.status).toBe(200);
    expect(sim.body.success).toBe(true);

    const sent = await sandbox.chain.send(tx);
    expect(sent.err).toBeNull();
    const decoded = await gw.get(`/api/chain/decode-tx?signature=${sent.signature}`, H);
    expect(decoded.status).toBe(200);
    // one answer shape: the simulation and the decode of what it simulated keep the same rules
    expect([...answerShapeProblems(sim.body), ...answerShapeProblems(decoded.body)]).toEqual([]);

    // What an agent checks before signing, exactly:
    const simulated = byOwner(sim.body.ownerChanges);
    // (the rent alice parks in her own new token account is reported apart, as decode-tx does)
    expect(simulated[s.alice.address]).toEqual({ SOL: '-250000000/9', [s.mint]: '1500000/6' });
    expect(sim.body.ownerChanges[0]).toMatchObject({ owner: s.alice.address, feePayer: true, tokenAccountRentLamports: 2039280 });
    expect(simulated[s.bob.address]).toEqual({ [s.mint]: '-1500000/6' });
    // ...and it is what the chain then did.
    expect(simulated).toEqual(byOwner(decoded.body.ownerChanges));
    const fee = (o: any[]) => o.find((x) => x.feePayer).feeLamports;
    expect(fee(sim.body.ownerChanges)).toBe(fee(decoded.body.ownerChanges));
    expect(sim.body.ownerChanges[0].tokenAccountRentLamports).toBe(decoded.body.ownerChanges[0].tokenAccountRentLamports);
    expect(sim.body.ownerChanges.filter((o: any) => o.signer).map((o: any) => o.owner)).toEqual([s.alice.address, s.bob.address]);

    // per account: carol's lamports (a lookup-table key in v0) and both token accounts
    const carol = sim.body.accountChanges.find((a: any) => a.address === s.carol);
    expect(carol).toMatchObject({ lamportsBefore: 0, lamportsAfter: 250000000, lamportsChange: 250000000, token: null });
    const tokenSides = sim.body.accountChanges.filter((a: any) => a.token).map((a: any) => [a.token.owner, a.token.change]);
    expect(tokenSides.sort()).toEqual([[s.alice.address, '1500000'], [s.bob.address, '-1500000']].sort());
  });

  test('a lookup table that does not exist is a 400 that costs nothing', async () => {
    const s = await scenario();
    const missing = (await generateKeyPairSigner()).address;
    const tx = await build(s, 0, { [missing]: [s.carol] });
    const before = (await gw.get('/api/keys/me', H)).body.creditLamports;
    const res = await gw.post('/api/chain/simulate', { transaction: getBase64EncodedWireTransaction(tx) }, H);
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(`address lookup table ${missing} was not found`);
    expect((await gw.get('/api/keys/me', H)).body.creditLamports).toBe(before);
  });
});
