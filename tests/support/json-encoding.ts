// A recorded getTransaction result as a node answers the same transaction in the `json` encoding, which is
// what the gateway asks for. A base64 recording's wire message is decoded as it stands. A jsonParsed one's
// header is rebuilt from the keys' signer/writable flags and every instruction (inner ones too) compiled back
// to key indexes and base58 data; only the parsed forms the recorded 2021 transactions hold are re-encoded
// (System, SPL Token, the legacy ATA create), any other one throws rather than guess.
// `tests/unit/recorded-json-encoding.test.ts` checks the rebuilt messages against the transactions' own
// signatures and that they decode as the recorded ones do.
import { type Address, getCompiledTransactionMessageDecoder, getCompiledTransactionMessageEncoder, getTransactionDecoder } from '@solana/kit';
import { base58 } from '@scure/base';

interface ParsedKey {
  pubkey: string;
  signer: boolean;
  writable: boolean;
  source?: string;
}

interface ParsedIx {
  programId: string;
  program?: string;
  accounts?: string[];
  data?: string;
  parsed?: { type: string; info: Record<string, unknown> };
  stackHeight?: number | null;
}

const u32 = (n: number) => new Uint8Array(new Uint32Array([n]).buffer);
const u64 = (n: unknown) => {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt(n as string | number), true);
  return out;
};
const key = (a: unknown) => base58.decode(a as string);
const join = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));

// parsed type -> [the instruction's accounts in order, its data]; spl-token instruction.rs, system_instruction.rs
const SYSTEM: Record<string, (i: Record<string, unknown>) => [unknown[], Uint8Array]> = {
  createAccount: (i) => [[i.source, i.newAccount], join(u32(0), u64(i.lamports), u64(i.space), key(i.owner))],
  assign: (i) => [[i.account], join(u32(1), key(i.owner))],
  transfer: (i) => [[i.source, i.destination], join(u32(2), u64(i.lamports))],
  allocate: (i) => [[i.account], join(u32(8), u64(i.space))],
};
const TOKEN: Record<string, (i: Record<string, unknown>) => [unknown[], Uint8Array]> = {
  initializeAccount: (i) => [[i.account, i.mint, i.owner, i.rentSysvar], Uint8Array.of(1)],
  transfer: (i) => [[i.source, i.destination, i.authority], join(Uint8Array.of(3), u64(i.amount))],
  approve: (i) => [[i.source, i.delegate, i.owner], join(Uint8Array.of(4), u64(i.amount))],
  mintTo: (i) => [[i.mint, i.account, i.mintAuthority], join(Uint8Array.of(7), u64(i.amount))],
  burn: (i) => [[i.account, i.mint, i.authority], join(Uint8Array.of(8), u64(i.amount))],
  closeAccount: (i) => [[i.account, i.destination, i.owner], Uint8Array.of(9)],
};
const ATA: Record<string, (i: Record<string, unknown>) => [unknown[], Uint8Array]> = {
  // the 2021 program's Create took no data
  create: (i) => [[i.source, i.account, i.wallet, i.mint, i.systemProgram, i.tokenProgram, i.rentSysvar], new Uint8Array()],
};
const BY_PROGRAM: Record<string, typeof SYSTEM> = { system: SYSTEM, 'spl-token': TOKEN, 'spl-associated-token-account': ATA };

/** One instruction's accounts and data, from its raw or parsed form. */
function unparse(ix: ParsedIx): { accounts: string[]; data: Uint8Array } {
  if (!ix.parsed) return { accounts: ix.accounts ?? [], data: base58.decode(ix.data ?? '') };
  const encode = BY_PROGRAM[ix.program ?? '']?.[ix.parsed.type];
  if (!encode || ('multisigAuthority' in ix.parsed.info) || ('multisigOwner' in ix.parsed.info)) throw new Error(`no json form for ${ix.program} ${ix.parsed.type}`);
  const [accounts, data] = encode(ix.parsed.info);
  if (accounts.some((a) => typeof a !== 'string')) throw new Error(`${ix.program} ${ix.parsed.type} lacks an account`);
  return { accounts: accounts as string[], data };
}

/** The message header a legacy message's keys imply (signers first, writable before read-only in each group). */
function headerOf(keys: readonly ParsedKey[]) {
  return {
    numRequiredSignatures: keys.filter((k) => k.signer).length,
    numReadonlySignedAccounts: keys.filter((k) => k.signer && !k.writable).length,
    numReadonlyUnsignedAccounts: keys.filter((k) => !k.signer && !k.writable).length,
  };
}

/** The `json`-encoded result of a base64 (wire) one: meta is the same in both encodings. */
function fromWire(result: any): unknown {
  const tx = getTransactionDecoder().decode(Buffer.from(result.transaction[0], 'base64'));
  const m = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
  if (m.version !== 'legacy' && m.version !== 0) throw new Error(`no json form for a v${m.version} message`);
  const lookups = 'addressTableLookups' in m ? (m.addressTableLookups ?? []) : [];
  return {
    ...result,
    transaction: {
      signatures: Object.values(tx.signatures).map((sig) => base58.encode(sig!)),
      message: {
        header: { numRequiredSignatures: m.header.numSignerAccounts, numReadonlySignedAccounts: m.header.numReadonlySignerAccounts, numReadonlyUnsignedAccounts: m.header.numReadonlyNonSignerAccounts },
        accountKeys: m.staticAccounts,
        recentBlockhash: m.lifetimeToken,
        instructions: m.instructions.map((ix) => ({ programIdIndex: ix.programAddressIndex, accounts: ix.accountIndices ?? [], data: base58.encode(Uint8Array.from(ix.data ?? [])), stackHeight: null })),
        ...(m.version === 'legacy' ? {} : { addressTableLookups: lookups.map((l) => ({ accountKey: l.lookupTableAddress, writableIndexes: l.writableIndexes, readonlyIndexes: l.readonlyIndexes })) }),
      },
    },
  };
}

/** The `json`-encoded result of a legacy jsonParsed or a base64 one; a json one as it is. */
export function asJsonEncoding(result: any): unknown {
  if (Array.isArray(result.transaction)) return fromWire(result);
  if (typeof result.transaction.message.accountKeys[0] === 'string') return result;
  const message = result.transaction.message;
  const keys = message.accountKeys as ParsedKey[];
  if (result.version !== undefined && result.version !== 'legacy') throw new Error('only legacy messages are re-encoded');
  const index = new Map(keys.map((k, i) => [k.pubkey, i]));
  const compile = (ix: ParsedIx) => {
    const { accounts, data } = unparse(ix);
    const indexOf = (a: string) => {
      const i = index.get(a);
      if (i === undefined) throw new Error(`${a} is not among the message's keys`);
      return i;
    };
    return { programIdIndex: indexOf(ix.programId), accounts: accounts.map(indexOf), data: base58.encode(data), ...(ix.stackHeight === undefined ? {} : { stackHeight: ix.stackHeight }) };
  };
  return {
    ...result,
    transaction: {
      signatures: result.transaction.signatures,
      message: {
        header: headerOf(keys),
        accountKeys: keys.map((k) => k.pubkey),
        recentBlockhash: message.recentBlockhash,
        instructions: (message.instructions as ParsedIx[]).map(compile),
      },
    },
    meta: {
      ...result.meta,
      innerInstructions: (result.meta.innerInstructions ?? []).map((inner: { index: number; instructions: ParsedIx[] }) => ({ index: inner.index, instructions: inner.instructions.map(compile) })),
    },
  };
}

/** The signed bytes of a `json`-encoded legacy or v0 message (to check the transaction's signatures against). */
export function messageBytes(result: any): Uint8Array {
  const { header, accountKeys, recentBlockhash, instructions, addressTableLookups } = result.transaction.message;
  const v0 = result.version === 0;
  return new Uint8Array(
    getCompiledTransactionMessageEncoder().encode({
      version: v0 ? 0 : 'legacy',
      header: { numSignerAccounts: header.numRequiredSignatures, numReadonlySignerAccounts: header.numReadonlySignedAccounts, numReadonlyNonSignerAccounts: header.numReadonlyUnsignedAccounts },
      staticAccounts: accountKeys as Address[],
      lifetimeToken: recentBlockhash,
      instructions: instructions.map((ix: { programIdIndex: number; accounts: number[]; data: string }) => ({ programAddressIndex: ix.programIdIndex, accountIndices: ix.accounts, data: base58.decode(ix.data) })),
      ...(v0 ? { addressTableLookups: addressTableLookups.map((l: any) => ({ lookupTableAddress: l.accountKey, writableIndexes: l.writableIndexes, readonlyIndexes: l.readonlyIndexes })) } : {}),
    } as Parameters<ReturnType<typeof getCompiledTransactionMessageEncoder>['encode']>[0]),
  );
}
