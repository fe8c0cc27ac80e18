// Token-2022 mints and accounts with extensions, rendered jsonParsed like mainnet.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createSolanaRpc, generateKeyPairSigner, type Address, type KeyPairSigner } from '@solana/kit';
import { SandboxSendError, startSandbox, type Sandbox } from '../support/sandbox/index.ts';
import { fixture, jsonType, keys, plain, rawResult } from '../support/sandbox/testing.ts';

let sb: Sandbox;
let rpc: ReturnType<typeof createSolanaRpc>;
let issuer: KeyPairSigner;
let holder: KeyPairSigner;
let delegate: Address;
let mint: Address;

type Ext = { extension: string; state?: Record<string, unknown> };
const pyusd = fixture<any>('getAccountInfo', 'pyusd-token2022-mint-gem.json').value;
const pyusdExt = (name: string): Ext => pyusd.data.parsed.info.extensions.find((e: Ext) => e.extension === name);
const spkcc = fixture<any>('getAccountInfo-parsed-data-only', 'spkcc-token2022-frozen-default-permdelegate-pausable-sava.json');
const spkccExt = (name: string): Ext => spkcc.info.extensions.find((e: Ext) => e.extension === name);

/** Same keys and JSON types as the mainnet extension (null and string are both fine for optional authorities). */
function expectLikeMainnet(ours: Ext | undefined, ref: Ext): void {
  expect(ours).toBeDefined();
  expect(keys(ours)).toEqual(keys(ref));
  if (!ref.state) return;
  expect(keys(ours!.state)).toEqual(keys(ref.state));
  for (const [k, v] of Object.entries(ref.state)) {
    const t = jsonType(ours!.state![k]);
    if (v === null || t === 'null') expect(['null', 'string']).toContain(t);
    else if (jsonType(v) === 'object') expect(keys(ours!.state![k])).toEqual(keys(v));
    else expect(t).toBe(jsonType(v));
  }
}

async function parsedAccount(addr: Address): Promise<any> {
  return (await rawResult<any>(sb.url, 'getAccountInfo', [addr, { encoding: 'jsonParsed' }])).value;
}

beforeAll(async () => {
  sb = await startSandbox();
  rpc = createSolanaRpc(sb.url);
  issuer = await sb.newWallet();
  holder = await sb.newWallet(100_000_000n);
  delegate = (await generateKeyPairSigner()).address;
  mint = await sb.createMint({
    authority: issuer,
    decimals: 6,
    tokenProgram: 'token-2022',
    freezeAuthority: issuer.address,
    extensions: {
      transferFee: { basisPoints: 250, maximumFee: 5_000_000n },
      permanentDelegate: delegate,
      mintCloseAuthority: issuer.address,
      pausable: true,
    },
  });
  await sb.mintTo(mint, issuer, issuer.address, 1_000_000_000n);
});
afterAll(() => sb.stop());

describe('Token-2022 mint', () => {
  test('top level matches the PYUSD mint fixture', async () => {
    const acc = await parsedAccount(mint);
    expect(keys(acc)).toEqual(keys(pyusd));
    expect(keys(acc.data)).toEqual(keys(pyusd.data));
    expect(acc.data.program).toBe('spl-token-2022');
    expect(acc.owner).toBe('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb');
    expect(acc.data.space).toBe(acc.space);
    expect(keys(acc.data.parsed.info)).toEqual(keys(pyusd.data.parsed.info));
    expect(acc.data.parsed.info).toMatchObject({ decimals: 6, supply: '1000000000', mintAuthority: issuer.address, freezeAuthority: issuer.address, isInitialized: true });
    expect(acc.data.parsed.info.extensions.map((e: Ext) => e.extension)).toEqual(['transferFeeConfig', 'mintCloseAuthority', 'permanentDelegate', 'pausableConfig']);
  });

  test('each extension has mainnet field names, nesting and types', async () => {
    const exts: Ext[] = (await parsedAccount(mint)).data.parsed.info.extensions;
    const ext = (name: string) => exts.find((e) => e.extension === name);
    expectLikeMainnet(ext('transferFeeConfig'), pyusdExt('transferFeeConfig'));
    expectLikeMainnet(ext('permanentDelegate'), pyusdExt('permanentDelegate'));
    expectLikeMainnet(ext('mintCloseAuthority'), pyusdExt('mintCloseAuthority'));
    expectLikeMainnet(ext('pausableConfig'), spkccExt('pausableConfig'));
    const epoch = (await rpc.getEpochInfo().send()).epoch;
    expect(plain(ext('transferFeeConfig')!.state)).toEqual({
      transferFeeConfigAuthority: issuer.address,
      withdrawWithheldAuthority: issuer.address,
      withheldAmount: 0,
      olderTransferFee: { epoch: Number(epoch), maximumFee: 5_000_000, transferFeeBasisPoints: 250 },
      newerTransferFee: { epoch: Number(epoch), maximumFee: 5_000_000, transferFeeBasisPoints: 250 },
    });
    expect(ext('permanentDelegate')!.state).toEqual({ delegate });
    expect(ext('pausableConfig')!.state).toEqual({ authority: issuer.address, paused: false });
  });

  test('a transfer withholds the fee in the destination account (transferFeeAmount) and lists token balances with programId', async () => {
    const sig = await sb.transferToken(mint, issuer, holder.address, 100_000_000n);
    const { value } = await rpc.getTokenAccountsByOwner(holder.address, { mint }, { encoding: 'jsonParsed' }).send();
    const info = value[0]!.account.data.parsed.info as any;
    expect(info.tokenAmount).toEqual({ uiAmount: 97.5, decimals: 6, amount: '97500000', uiAmountString: '97.5' });
    expect(plain(info.extensions)).toEqual([
      { extension: 'immutableOwner' },
      { extension: 'transferFeeAmount', state: { withheldAmount: 2_500_000 } },
      { extension: 'pausableAccount' },
    ]);
    const tx = await rawResult<any>(sb.url, 'getTransaction', [sig, { maxSupportedTransactionVersion: 0 }]);
    const post = tx.meta.postTokenBalances.find((b: any) => b.owner === holder.address);
    expect(post).toMatchObject({ mint, programId: 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb', uiTokenAmount: { amount: '97500000', uiAmountString: '97.5' } });
    const ref = fixture<any>('getTransaction', 'arb-bot-noop-token2022-balances-agavesim.json').meta.postTokenBalances[0];
    expect(keys(post)).toEqual(keys(ref));
  });

  test('non-transferable and default-frozen mints behave (and render) like mainnet', async () => {
    const soulbound = await sb.createMint({ authority: issuer, decimals: 0, tokenProgram: 'token-2022', extensions: { nonTransferable: true } });
    expect((await parsedAccount(soulbound)).data.parsed.info.extensions).toEqual([{ extension: 'nonTransferable' }]);
    await sb.mintTo(soulbound, issuer, holder.address, 1n);
    await expect(sb.transferToken(soulbound, holder, issuer.address, 1n)).rejects.toBeInstanceOf(SandboxSendError);
    const [holderAta] = (await rpc.getTokenAccountsByOwner(holder.address, { mint: soulbound }, { encoding: 'jsonParsed' }).send()).value;
    expect((holderAta!.account.data.parsed.info as any).extensions.map((e: Ext) => e.extension)).toEqual(['immutableOwner', 'nonTransferableAccount']);

    const frozen = await sb.createMint({ authority: issuer, decimals: 2, tokenProgram: 'token-2022', extensions: { defaultAccountStateFrozen: true } });
    const f = await parsedAccount(frozen);
    expectLikeMainnet(f.data.parsed.info.extensions[0], spkccExt('defaultAccountState'));
    expect(f.data.parsed.info.extensions[0]).toEqual({ extension: 'defaultAccountState', state: { accountState: 'frozen' } });
    const ata = await sb.createAta(holder.address, frozen);
    expect((await parsedAccount(ata)).data.parsed.info.state).toBe('frozen');
    try {
      await sb.mintTo(frozen, issuer, holder.address, 5n);
      throw new Error('minting into a frozen account should fail');
    } catch (e) {
      expect(e).toBeInstanceOf(SandboxSendError);
      expect((e as SandboxSendError).code).toBe(-32002);
      expect((e as SandboxSendError).err).toEqual({ InstructionError: [1, { Custom: 17 }] });
    }
  });

  test('transfer hook renders its programId', async () => {
    const hookProgram = (await generateKeyPairSigner()).address;
    const hooked = await sb.createMint({ authority: issuer, decimals: 9, tokenProgram: 'token-2022', extensions: { transferHookProgram: hookProgram } });
    const ext = (await parsedAccount(hooked)).data.parsed.info.extensions[0];
    expectLikeMainnet(ext, pyusdExt('transferHook'));
    expect(ext.state).toEqual({ authority: issuer.address, programId: hookProgram });
  });
});
