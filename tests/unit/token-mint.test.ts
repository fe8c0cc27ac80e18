import { describe, expect, test } from 'bun:test';
import { address, getBase58Encoder, getBase64Decoder, none, some } from '@solana/kit';
import { getMintEncoder as getClassicMintEncoder } from '@solana-program/token';
import { AccountState, extension, getMintEncoder as get2022MintEncoder } from '@solana-program/token-2022';
import { parseJson } from '../../src/json.ts';
import { findExtension, parseMintAccount } from '../../src/chain/token/mint.ts';
import { SYSTEM_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../../src/chain/program-ids.ts';

const FIX = `${import.meta.dir}/../fixtures/mainnet`;
const load = async (path: string): Promise<any> => parseJson(await Bun.file(`${FIX}/${path}`).text());
/** The parsed-data-only fixtures store just `{info, type}`: wrap them as a jsonParsed account. */
const wrap2022 = (parsed: unknown) => ({
  data: { parsed, program: 'spl-token-2022', space: 0 },
  executable: false,
  lamports: 1,
  owner: TOKEN_2022_PROGRAM,
  rentEpoch: 0,
  space: 0,
});
const b64 = (bytes: Parameters<ReturnType<typeof getBase64Decoder>['decode']>[0]) => getBase64Decoder().decode(bytes);

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const USDT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';
const PYUSD = '2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo';
const BONK = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
const A = address('HHL3YaESVUftpHaajQ3pLgGgkAfeDmwmyca1NsfLtPsy');
const B = address('9foMHsSDq7nMg4WPusSz9eY7tyxyukqborA8GyU5cUxD');

describe('parseMintAccount: recorded mainnet mints', () => {
  test('USDC (classic, jsonParsed)', async () => {
    const m = parseMintAccount(USDC, (await load('getAccountInfo/usdc-mint-gem.json')).value);
    expect(m).toEqual({
      address: USDC,
      program: 'spl-token',
      tokenProgram: TOKEN_PROGRAM,
      decimals: 6,
      supply: 3986659142956864n,
      mintAuthority: 'BJE5MMbqXjVwjAF7oxwPYXnTXDyspzZyt4vwenNw5ruG',
      freezeAuthority: '7dGbd2QZcCKcTndnHcTL8q7SMVXAkp688NTQYwrRCrar',
      extensions: [],
      encoding: 'jsonParsed',
    });
  });

  test('USDC from a getMultipleAccounts element (newer supply)', async () => {
    const m = parseMintAccount(USDC, await load('getMultipleAccounts-account-objects/usdc-mint-rwasonar.json'));
    expect(m?.supply).toBe(7727649735651351n);
    expect(m?.freezeAuthority).toBe('7dGbd2QZcCKcTndnHcTL8q7SMVXAkp688NTQYwrRCrar');
  });

  test('USDT from legacy base58 raw data decodes the 82-byte layout', async () => {
    const value = (await load('getAccountInfo/usdt-mint-base58-default-encoding-notes.json')).value;
    expect(typeof value.data).toBe('string');
    const m = parseMintAccount(USDT, value);
    expect(m).toEqual({
      address: USDT,
      program: 'spl-token',
      tokenProgram: TOKEN_PROGRAM,
      decimals: 6,
      supply: 1889937325185197n,
      mintAuthority: 'Q6XprfkF8RQQKoQVG33xT88H7wi8Uk1B1CC7YAs69Gi',
      freezeAuthority: 'Q6XprfkF8RQQKoQVG33xT88H7wi8Uk1B1CC7YAs69Gi',
      extensions: [],
      encoding: 'base58',
    });
    // The same bytes as a [data, encoding] tuple, in both encodings.
    const bytes = new Uint8Array(getBase58Encoder().encode(value.data));
    expect(bytes.length).toBe(82);
    const viaBase64 = parseMintAccount(USDT, { ...value, data: [b64(bytes), 'base64'] });
    expect(viaBase64).toEqual({ ...m!, encoding: 'base64' });
    expect(parseMintAccount(USDT, { ...value, data: [value.data, 'base58'] })).toEqual(m);
  });

  test('PYUSD (Token-2022, jsonParsed) keeps every extension with its state', async () => {
    const m = parseMintAccount(PYUSD, (await load('getAccountInfo/pyusd-token2022-mint-gem.json')).value);
    expect(m?.program).toBe('spl-token-2022');
    expect(m?.tokenProgram).toBe(TOKEN_2022_PROGRAM);
    expect(m?.supply).toBe(148331253437589n);
    expect(m?.mintAuthority).toBe('22mKJkKjGEQ3rampp5YKaSsaYZ52BUkcnUN6evXGsXzz');
    expect(m?.freezeAuthority).toBe('2apBGMsS6ti9RyF5TwQTDswXBWskiJP2LD4cUEDqYJjk');
    expect(m?.extensions.map((e) => e.extension)).toEqual([
      'mintCloseAuthority',
      'permanentDelegate',
      'transferFeeConfig',
      'confidentialTransferMint',
      'confidentialTransferFeeConfig',
      'transferHook',
      'metadataPointer',
      'tokenMetadata',
    ]);
    expect(findExtension(m!, 'transferHook')?.state).toEqual({ authority: '2apBGMsS6ti9RyF5TwQTDswXBWskiJP2LD4cUEDqYJjk', programId: null });
    expect(findExtension(m!, 'tokenMetadata')?.state?.mint).toBe(PYUSD); // the address in the table is PYUSD's
  });

  test('BONK: revoked authorities are null, supply above 2^53 stays exact', async () => {
    const m = parseMintAccount(BONK, (await load('getAccountInfo/bonk-mint-authorities-revoked-memecoinbot.json')).value);
    expect(m?.mintAuthority).toBeNull();
    expect(m?.freezeAuthority).toBeNull();
    expect(m?.decimals).toBe(5);
    expect(m?.supply).toBe(8799471343582888521n);
  });

  test('honeypot (parsed data only): fee maximum above 2^53 stays exact', async () => {
    const parsed = await load('getAccountInfo-parsed-data-only/honeypot-token2022-fee1000bps-nontransferable-interest-sava.json');
    const m = parseMintAccount('1nbWT8JqE4MUJoZsTsqT5bo3dMXP3WHsZkNy1sGBchn', wrap2022(parsed));
    expect(m?.supply).toBe(0n);
    const fee = findExtension(m!, 'transferFeeConfig')?.state as any;
    expect(fee.newerTransferFee.maximumFee).toBe(2328306436538696192n);
    expect(fee.newerTransferFee.transferFeeBasisPoints).toBe(1000);
    expect(findExtension(m!, 'nonTransferable')).toEqual({ extension: 'nonTransferable' });
  });

  test('SPKCC (parsed data only) and AAPLon (account object)', async () => {
    const spkcc = parseMintAccount(
      '14Rg7TaptSo1Ndkz1ngBw2rE4EuFhQd2PzCrkyjGdsL1',
      wrap2022(await load('getAccountInfo-parsed-data-only/spkcc-token2022-frozen-default-permdelegate-pausable-sava.json')),
    );
    expect(spkcc?.decimals).toBe(5);
    expect(spkcc?.extensions.map((e) => e.extension)).toContain('permissionedBurnConfig');
    const aapl = parseMintAccount('123mYEnRLM2LLYsJW3K6oyYh8uP1fngj732iG638ondo', await load('getMultipleAccounts-account-objects/aaplon-ondo-token2022-scaled-ui-rwasonar.json'));
    expect(aapl?.decimals).toBe(9);
    expect(aapl?.supply).toBe(367789809287n);
    expect(aapl?.extensions).toHaveLength(7);
    expect(findExtension(aapl!, 'scaledUiAmountConfig')?.state?.multiplier).toBe('1.003376073740221');
  });
});

describe('parseMintAccount: not a mint → null', () => {
  test('missing account', () => {
    expect(parseMintAccount(USDC, null)).toBeNull();
    expect(parseMintAccount(USDC, undefined)).toBeNull();
  });
  test('a wallet (System-owned, empty data)', () => {
    expect(parseMintAccount('8wytzyCBXco7yqgrLDiecpEt452MSuNWRe7xsLgAAX1H', { data: ['', 'base64'], owner: SYSTEM_PROGRAM, executable: false, lamports: 1366309311 })).toBeNull();
  });
  test('a jsonParsed token account', () => {
    const value = {
      data: { program: 'spl-token', parsed: { type: 'account', info: { mint: USDC, owner: A, tokenAmount: { amount: '1', decimals: 6 } } }, space: 165 },
      owner: TOKEN_PROGRAM,
      executable: false,
    };
    expect(parseMintAccount(USDC, value)).toBeNull();
  });
  test('a jsonParsed mint claimed by a non-token owner', async () => {
    const value = (await load('getAccountInfo/usdc-mint-gem.json')).value;
    expect(parseMintAccount(USDC, { ...value, owner: SYSTEM_PROGRAM })).toBeNull();
  });
  test('raw token account (165 bytes), multisig (355 bytes) and uninitialized mint', () => {
    expect(parseMintAccount(USDC, { data: [b64(new Uint8Array(165)), 'base64'], owner: TOKEN_PROGRAM })).toBeNull();
    expect(parseMintAccount(USDC, { data: [b64(new Uint8Array(355)), 'base64'], owner: TOKEN_PROGRAM })).toBeNull();
    expect(parseMintAccount(USDC, { data: [b64(new Uint8Array(82)), 'base64'], owner: TOKEN_PROGRAM })).toBeNull();
    // Token-2022 token account with extensions: account-type byte 2
    const account = new Uint8Array(170);
    account[165] = 2;
    expect(parseMintAccount(USDC, { data: [b64(account), 'base64'], owner: TOKEN_2022_PROGRAM })).toBeNull();
  });
  test('jsonParsed mint with isInitialized false', () => {
    const value = {
      data: { program: 'spl-token', parsed: { type: 'mint', info: { decimals: 0, supply: '0', isInitialized: false, mintAuthority: null, freezeAuthority: null } } },
      owner: TOKEN_PROGRAM,
    };
    expect(parseMintAccount(USDC, value)).toBeNull();
  });
  test('unreadable encodings throw instead of pretending "not a mint"', () => {
    expect(() => parseMintAccount(USDC, { data: ['KLUv/QBYAQAA', 'base64+zstd'], owner: TOKEN_PROGRAM })).toThrow(TypeError);
    expect(() => parseMintAccount(USDC, { data: ['0OIl', 'base58'], owner: TOKEN_PROGRAM })).toThrow(TypeError);
  });
});

describe('parseMintAccount: raw Token-2022 with extensions (encoded by @solana-program/token-2022)', () => {
  const encode = (extensions: Parameters<typeof extension>[] | any[]) =>
    get2022MintEncoder().encode({
      mintAuthority: some(A),
      supply: 2n ** 63n + 5n,
      decimals: 6,
      isInitialized: true,
      freezeAuthority: none(),
      extensions: some(extensions as any),
    });

  test('decodes risk-relevant extension states in the jsonParsed shape', () => {
    const bytes = encode([
      extension('TransferFeeConfig', {
        transferFeeConfigAuthority: A,
        withdrawWithheldAuthority: B,
        withheldAmount: 7n,
        olderTransferFee: { epoch: 700n, maximumFee: 2n ** 61n, transferFeeBasisPoints: 250 },
        newerTransferFee: { epoch: 735n, maximumFee: 5000n, transferFeeBasisPoints: 1000 },
      }),
      extension('NonTransferable', {}),
      extension('PausableConfig', { authority: B, paused: true }),
      extension('TransferHook', { authority: A, programId: B }),
      extension('DefaultAccountState', { state: AccountState.Frozen }),
      extension('PermanentDelegate', { delegate: B }),
      extension('MintCloseAuthority', { closeAuthority: A }),
      extension('InterestBearingConfig', { rateAuthority: A, initializationTimestamp: 1738362257n, preUpdateAverageRate: 9900, lastUpdateTimestamp: 1738362257n, currentRate: -20 }),
      extension('ScaledUiAmountConfig', { authority: A, multiplier: 1.003376073740221, newMultiplierEffectiveTimestamp: 1788344044n, newMultiplier: 1.5 }),
      extension('TokenMetadata', { updateAuthority: some(A), mint: B, name: 'Name', symbol: 'SYM', uri: 'https://x', additionalMetadata: new Map([['k', 'v']]) }),
      extension('PermissionedBurn', { authority: none() }),
    ]);
    const m = parseMintAccount('X', { data: [b64(bytes), 'base64'], owner: TOKEN_2022_PROGRAM });
    expect(m).not.toBeNull();
    expect(m!.supply).toBe(2n ** 63n + 5n);
    expect(m!.mintAuthority).toBe(A);
    expect(m!.freezeAuthority).toBeNull();
    expect(m!.encoding).toBe('base64');
    expect(m!.extensions).toEqual([
      {
        extension: 'transferFeeConfig',
        state: {
          transferFeeConfigAuthority: A,
          withdrawWithheldAuthority: B,
          withheldAmount: 7,
          olderTransferFee: { epoch: 700, maximumFee: 2n ** 61n, transferFeeBasisPoints: 250 },
          newerTransferFee: { epoch: 735, maximumFee: 5000, transferFeeBasisPoints: 1000 },
        },
      },
      { extension: 'nonTransferable' },
      { extension: 'pausableConfig', state: { authority: B, paused: true } },
      { extension: 'transferHook', state: { authority: A, programId: B } },
      { extension: 'defaultAccountState', state: { accountState: 'frozen' } },
      { extension: 'permanentDelegate', state: { delegate: B } },
      { extension: 'mintCloseAuthority', state: { closeAuthority: A } },
      {
        extension: 'interestBearingConfig',
        state: { rateAuthority: A, initializationTimestamp: 1738362257, preUpdateAverageRate: 9900, lastUpdateTimestamp: 1738362257, currentRate: -20 },
      },
      {
        extension: 'scaledUiAmountConfig',
        state: { authority: A, multiplier: '1.003376073740221', newMultiplierEffectiveTimestamp: 1788344044, newMultiplier: '1.5' },
      },
      { extension: 'tokenMetadata', state: { updateAuthority: A, mint: B, name: 'Name', symbol: 'SYM', uri: 'https://x', additionalMetadata: [['k', 'v']] } },
      { extension: 'permissionedBurnConfig', state: { authority: null } },
    ]);
  });

  test('Token-2022 mint without extensions is the bare 82-byte layout', () => {
    const bytes = getClassicMintEncoder().encode({ mintAuthority: none(), supply: 1n, decimals: 0, isInitialized: true, freezeAuthority: some(B) });
    const m = parseMintAccount('X', { data: [b64(bytes), 'base64'], owner: TOKEN_2022_PROGRAM });
    expect(m?.program).toBe('spl-token-2022');
    expect(m?.freezeAuthority).toBe(B);
    expect(m?.extensions).toEqual([]);
  });

  test('an unknown extension type, or a truncated entry, is reported as unparseable', () => {
    const base = encode([extension('NonTransferable', {})]);
    // append TLV: type 99, length 2, value [1, 2]; then a truncated entry (type 12 claiming 50 bytes)
    const extra = new Uint8Array([99, 0, 2, 0, 1, 2, 12, 0, 50, 0, 1]);
    const bytes = new Uint8Array([...base, ...extra]);
    const m = parseMintAccount('X', { data: [b64(bytes), 'base64'], owner: TOKEN_2022_PROGRAM });
    expect(m?.extensions).toEqual([
      { extension: 'nonTransferable' },
      { extension: 'unparseableExtension', state: { extensionType: 99 } },
      { extension: 'unparseableExtension', state: { extensionType: 12 } },
    ]);
  });

  test('a fixed-size extension with the wrong length is unparseable, not misread', () => {
    const base = encode([]);
    const bytes = new Uint8Array([...base, 12, 0, 31, 0, ...new Uint8Array(31).fill(7)]); // permanentDelegate needs 32
    const m = parseMintAccount('X', { data: [b64(bytes), 'base64'], owner: TOKEN_2022_PROGRAM });
    expect(m?.extensions).toEqual([{ extension: 'unparseableExtension', state: { extensionType: 12 } }]);
  });
});
