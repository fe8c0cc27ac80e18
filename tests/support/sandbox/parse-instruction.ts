// jsonParsed instructions (best effort, Agave's transaction-status parsers for System, SPL Token, ATA and Memo).
// Anything not understood is rendered like Agave's "partially decoded" form: { programId, accounts, data, stackHeight }.

import { base58 } from '@scure/base';
import {
  ASSOCIATED_TOKEN_PROGRAM,
  MEMO_PROGRAM,
  MEMO_V1_PROGRAM,
  SYSTEM_PROGRAM,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
} from './constants.ts';
import { EXTENSION_TYPE_NAMES, uiTokenAmount } from './token.ts';
import { b58, readU16, readU32, readU64 } from './wire.ts';

type Info = Record<string, unknown>;
type Parsed = { type: string; info: Info } | string;

/** serde_json without preserve_order emits object keys sorted: parsed `info` maps come out alphabetical. */
function sorted(info: Info): Info {
  return Object.fromEntries(Object.entries(info).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function need(accounts: string[], n: number): void {
  if (accounts.length < n) throw new Error('not enough accounts');
}

function parseSystem(data: Uint8Array, a: string[]): Parsed {
  const tag = readU32(data, 0);
  switch (tag) {
    case 0:
      need(a, 2);
      return { type: 'createAccount', info: { source: a[0], newAccount: a[1], lamports: readU64(data, 4), space: readU64(data, 12), owner: b58(data.subarray(20, 52)) } };
    case 1:
      need(a, 1);
      return { type: 'assign', info: { account: a[0], owner: b58(data.subarray(4, 36)) } };
    case 2:
      need(a, 2);
      return { type: 'transfer', info: { source: a[0], destination: a[1], lamports: readU64(data, 4) } };
    case 4:
      need(a, 3);
      return { type: 'advanceNonce', info: { nonceAccount: a[0], recentBlockhashesSysvar: a[1], nonceAuthority: a[2] } };
    case 8:
      need(a, 1);
      return { type: 'allocate', info: { account: a[0], space: readU64(data, 4) } };
    default:
      throw new Error('unsupported');
  }
}

/** Agave's parse_signers: a single authority, or a multisig authority followed by its signers. */
function signers(info: Info, lastNonSigner: number, a: string[], owner: string, multisig: string): void {
  if (a.length > lastNonSigner + 1) {
    info[multisig] = a[lastNonSigner];
    info.signers = a.slice(lastNonSigner + 1);
  } else {
    need(a, lastNonSigner + 1);
    info[owner] = a[lastNonSigner];
  }
}

function coption(data: Uint8Array, offset: number): string | null {
  return data[offset] === 1 ? b58(data.subarray(offset + 1, offset + 33)) : null;
}

const AUTHORITY_TYPES = [
  'mintTokens', 'freezeAccount', 'accountOwner', 'closeAccount', 'transferFeeConfig', 'withheldWithdraw', 'closeMint',
  'interestRate', 'permanentDelegate', 'confidentialTransferMint', 'transferHookProgramId', 'confidentialTransferFeeConfig',
  'metadataPointer', 'groupPointer', 'groupMemberPointer', 'scaledUiAmount', 'pause',
];

function parseToken(data: Uint8Array, a: string[]): Parsed {
  const tag = data[0];
  const info: Info = {};
  switch (tag) {
    case 0:
    case 20: {
      need(a, tag === 0 ? 2 : 1);
      info.mint = a[0];
      info.decimals = data[1];
      info.mintAuthority = b58(data.subarray(2, 34));
      const freeze = coption(data, 34);
      if (freeze) info.freezeAuthority = freeze;
      if (tag === 0) info.rentSysvar = a[1];
      return { type: tag === 0 ? 'initializeMint' : 'initializeMint2', info };
    }
    case 1:
      need(a, 4);
      return { type: 'initializeAccount', info: { account: a[0], mint: a[1], owner: a[2], rentSysvar: a[3] } };
    case 16:
      need(a, 3);
      return { type: 'initializeAccount2', info: { account: a[0], mint: a[1], owner: b58(data.subarray(1, 33)), rentSysvar: a[2] } };
    case 18:
      need(a, 2);
      return { type: 'initializeAccount3', info: { account: a[0], mint: a[1], owner: b58(data.subarray(1, 33)) } };
    case 3:
      need(a, 2);
      Object.assign(info, { source: a[0], destination: a[1], amount: readU64(data, 1).toString() });
      signers(info, 2, a, 'authority', 'multisigAuthority');
      return { type: 'transfer', info };
    case 4:
      need(a, 2);
      Object.assign(info, { source: a[0], delegate: a[1], amount: readU64(data, 1).toString() });
      signers(info, 2, a, 'owner', 'multisigOwner');
      return { type: 'approve', info };
    case 5:
      need(a, 1);
      info.source = a[0];
      signers(info, 1, a, 'owner', 'multisigOwner');
      return { type: 'revoke', info };
    case 6: {
      need(a, 1);
      const authorityType = AUTHORITY_TYPES[data[1]!] ?? 'unknown';
      const owned = authorityType === 'accountOwner' || authorityType === 'closeAccount' ? 'account' : 'mint';
      info[owned] = a[0];
      info.authorityType = authorityType;
      info.newAuthority = coption(data, 2);
      signers(info, 1, a, 'authority', 'multisigAuthority');
      return { type: 'setAuthority', info };
    }
    case 7:
      need(a, 2);
      Object.assign(info, { mint: a[0], account: a[1], amount: readU64(data, 1).toString() });
      signers(info, 2, a, 'mintAuthority', 'multisigMintAuthority');
      return { type: 'mintTo', info };
    case 8:
      need(a, 2);
      Object.assign(info, { account: a[0], mint: a[1], amount: readU64(data, 1).toString() });
      signers(info, 2, a, 'authority', 'multisigAuthority');
      return { type: 'burn', info };
    case 9:
      need(a, 2);
      Object.assign(info, { account: a[0], destination: a[1] });
      signers(info, 2, a, 'owner', 'multisigOwner');
      return { type: 'closeAccount', info };
    case 10:
    case 11:
      need(a, 2);
      Object.assign(info, { account: a[0], mint: a[1] });
      signers(info, 2, a, 'freezeAuthority', 'multisigFreezeAuthority');
      return { type: tag === 10 ? 'freezeAccount' : 'thawAccount', info };
    case 12:
      need(a, 3);
      Object.assign(info, { source: a[0], mint: a[1], destination: a[2], tokenAmount: uiTokenAmount(readU64(data, 1), data[9]!) });
      signers(info, 3, a, 'authority', 'multisigAuthority');
      return { type: 'transferChecked', info };
    case 13:
      need(a, 3);
      Object.assign(info, { source: a[0], mint: a[1], delegate: a[2], tokenAmount: uiTokenAmount(readU64(data, 1), data[9]!) });
      signers(info, 3, a, 'owner', 'multisigOwner');
      return { type: 'approveChecked', info };
    case 14:
      need(a, 2);
      Object.assign(info, { mint: a[0], account: a[1], tokenAmount: uiTokenAmount(readU64(data, 1), data[9]!) });
      signers(info, 2, a, 'mintAuthority', 'multisigMintAuthority');
      return { type: 'mintToChecked', info };
    case 15:
      need(a, 2);
      Object.assign(info, { account: a[0], mint: a[1], tokenAmount: uiTokenAmount(readU64(data, 1), data[9]!) });
      signers(info, 2, a, 'authority', 'multisigAuthority');
      return { type: 'burnChecked', info };
    case 17:
      need(a, 1);
      return { type: 'syncNative', info: { account: a[0] } };
    case 21: {
      need(a, 1);
      info.mint = a[0];
      if (data.length > 1) {
        const types: string[] = [];
        for (let o = 1; o + 2 <= data.length; o += 2) types.push(EXTENSION_TYPE_NAMES[readU16(data, o)] ?? 'uninitialized');
        info.extensionTypes = types;
      }
      return { type: 'getAccountDataSize', info };
    }
    case 22:
      need(a, 1);
      return { type: 'initializeImmutableOwner', info: { account: a[0] } };
    default:
      throw new Error('unsupported');
  }
}

function parseAta(data: Uint8Array, a: string[]): Parsed {
  const kind = data.length === 0 ? 0 : data[0];
  need(a, 6);
  if (kind === 0 || kind === 1) {
    return {
      type: kind === 0 ? 'create' : 'createIdempotent',
      info: { source: a[0], account: a[1], wallet: a[2], mint: a[3], systemProgram: a[4], tokenProgram: a[5] },
    };
  }
  if (kind === 2) {
    need(a, 7);
    return {
      type: 'recoverNested',
      info: { nestedSource: a[0], nestedMint: a[1], destination: a[2], nestedOwner: a[3], ownerMint: a[4], wallet: a[5], tokenProgram: a[6] },
    };
  }
  throw new Error('unsupported');
}

const PROGRAM_NAMES: Record<string, string> = {
  [SYSTEM_PROGRAM]: 'system',
  [TOKEN_PROGRAM]: 'spl-token',
  [TOKEN_2022_PROGRAM]: 'spl-token-2022',
  [ASSOCIATED_TOKEN_PROGRAM]: 'spl-associated-token-account',
  [MEMO_PROGRAM]: 'spl-memo',
  [MEMO_V1_PROGRAM]: 'spl-memo',
};

function parseKnown(programId: string, data: Uint8Array, accounts: string[]): Parsed | null {
  try {
    switch (programId) {
      case SYSTEM_PROGRAM:
        return parseSystem(data, accounts);
      case TOKEN_PROGRAM:
      case TOKEN_2022_PROGRAM:
        return parseToken(data, accounts);
      case ASSOCIATED_TOKEN_PROGRAM:
        return parseAta(data, accounts);
      case MEMO_PROGRAM:
      case MEMO_V1_PROGRAM:
        return new TextDecoder('utf-8', { fatal: true }).decode(data);
      default:
        return null;
    }
  } catch {
    return null;
  }
}

/** One instruction in jsonParsed form. */
export function parseInstruction(
  programId: string,
  accounts: string[],
  data: Uint8Array,
  stackHeight: number | null,
): Record<string, unknown> {
  const parsed = parseKnown(programId, data, accounts);
  if (parsed !== null) {
    return {
      program: PROGRAM_NAMES[programId],
      programId,
      parsed: typeof parsed === 'string' ? parsed : { info: sorted(parsed.info), type: parsed.type },
      stackHeight,
    };
  }
  return { programId, accounts, data: base58.encode(data), stackHeight };
}
