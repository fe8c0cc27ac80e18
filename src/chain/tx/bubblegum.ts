// Compressed NFTs (pure): Metaplex Bubblegum instructions, read with the layouts of its published IDL
// (metaplex-foundation/mpl-bubblegum idls/bubblegum.json, version 0.12.0, taken into this table; nothing is
// fetched at run time). A compressed NFT is a leaf of a merkle tree: its asset id is the PDA
// ["asset", tree, leaf nonce (u64 LE)] of Bubblegum, its owner and delegate live only in the leaf. Bubblegum
// logs the new leaf through the noop program (an ApplicationData event holding a LeafSchema), which gives the
// asset id, owner, delegate and nonce of a mint and a transfer; a burn's leaf index is in its own arguments.

import { createHash } from 'node:crypto';
import { Point } from '@noble/ed25519';
import { base58 } from '@scure/base';
import { BUBBLEGUM_PROGRAM } from '../program-ids';
import type { NormalizedInstruction, NormalizedTransaction } from './normalize';
import { identifyInstruction } from './instructions';
import { shortenAddress } from '../format';

/** The spl-noop program Bubblegum and account compression log their events through. */
export const NOOP_PROGRAM = 'noopb9bkMVfRPU8AsbpTUg8AQkHtKwMYZiFUjNRtMmV';
/** Metaplex's own noop (mpl-noop), used by Bubblegum v2 trees. */
export const MPL_NOOP_PROGRAM = 'mnoopTCrg4p8ry25e4bcWA9XZjbNjMTfgYVGGEdRsf3';

export interface CompressedNftCreator {
  readonly address: string;
  readonly verified: boolean;
  /** Percent of the royalty. */
  readonly share: number;
}

/** A mint's (or decompression's) metadata, as the instruction carries it. */
export interface CompressedNftMetadata {
  /** The name as given, when it is plain printable text of at most 64 characters; else null (it reaches summaries). */
  readonly name: string | null;
  readonly symbol: string | null;
  readonly uri: string | null;
  readonly sellerFeeBasisPoints: number;
  readonly primarySaleHappened: boolean;
  readonly isMutable: boolean;
  readonly collection: { readonly key: string; readonly verified: boolean } | null;
  readonly creators: readonly CompressedNftCreator[];
}

/** What one Bubblegum instruction did to one compressed NFT. */
export interface CompressedNftAction {
  readonly instructionIndex: number;
  readonly inner: boolean;
  /** The instruction, snake_case as in the tables ("mint_to_collection_v1", "transfer", "burn"). */
  readonly instruction: string;
  /** 'mint', 'transfer', 'burn', or another change of the leaf (delegate, redeem, decompress, ...). */
  readonly action: 'mint' | 'transfer' | 'burn' | 'other';
  readonly assetId: string | null;
  readonly tree: string | null;
  /** The leaf's nonce (its index in the tree). */
  readonly leafIndex: number | null;
  readonly leafOwnerBefore: string | null;
  readonly leafOwnerAfter: string | null;
  readonly leafDelegateBefore: string | null;
  readonly leafDelegateAfter: string | null;
  /** The collection the instruction names (its collection mint or core collection, or the metadata's). */
  readonly collection: string | null;
  readonly metadata: CompressedNftMetadata | null;
}

// ---- a small Borsh reader ----------------------------------------------------------------------

class Reader {
  private at = 0;
  constructor(private readonly data: Uint8Array) {}
  private take(n: number): Uint8Array {
    if (this.at + n > this.data.length) throw new RangeError('short');
    const out = this.data.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }
  skip(n: number): void {
    this.take(n);
  }
  u8(): number {
    return this.take(1)[0]!;
  }
  bool(): boolean {
    const b = this.u8();
    if (b > 1) throw new RangeError('bool');
    return b === 1;
  }
  u16(): number {
    const b = this.take(2);
    return b[0]! | (b[1]! << 8);
  }
  u32(): number {
    const b = this.take(4);
    return (b[0]! | (b[1]! << 8) | (b[2]! << 16)) + b[3]! * 0x1000000;
  }
  u64(): bigint {
    const b = this.take(8);
    return new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0, true);
  }
  pubkey(): string {
    return base58.encode(this.take(32));
  }
  string(max: number): string {
    const n = this.u32();
    if (n > max) throw new RangeError('string');
    return new TextDecoder('utf-8', { fatal: false }).decode(this.take(n));
  }
  option<T>(read: () => T): T | null {
    return this.bool() ? read() : null;
  }
}

/** Text from chain data that may reach a summary: printable, one line, bounded; else null. */
function plainText(text: string): string | null {
  const trimmed = text.replace(/\0+$/, '');
  if (trimmed !== trimmed.trim()) return null;
  return /^[\p{L}\p{N}\p{Zs}#.,_\-'&:!?()+/|@$%*]{1,64}$/u.test(trimmed) ? trimmed : null;
}

function creators(r: Reader): CompressedNftCreator[] {
  const n = r.u32();
  if (n > 5) throw new RangeError('creators'); // Metaplex allows at most 5
  return Array.from({ length: n }, () => ({ address: r.pubkey(), verified: r.bool(), share: r.u8() }));
}

/** MetadataArgs (v1) or MetadataArgsV2, per the IDL's field order. */
function metadataArgs(r: Reader, v2: boolean): CompressedNftMetadata {
  const name = r.string(200);
  const symbol = r.string(50);
  const uri = r.string(400);
  const sellerFeeBasisPoints = r.u16();
  const primarySaleHappened = r.bool();
  const isMutable = r.bool();
  if (v2) {
    r.option(() => r.u8()); // token standard
    const list = creators(r);
    const key = r.option(() => r.pubkey());
    return { name: plainText(name), symbol: plainText(symbol), uri: plainText(uri) && uri.length <= 200 ? uri : null, sellerFeeBasisPoints, primarySaleHappened, isMutable, collection: key ? { key, verified: true } : null, creators: list };
  }
  r.option(() => r.u8()); // edition nonce
  r.option(() => r.u8()); // token standard
  const collection = r.option(() => ({ verified: r.bool(), key: r.pubkey() }));
  r.option(() => {
    r.u8();
    r.u64();
    r.u64();
  }); // uses
  r.u8(); // token program version
  const list = creators(r);
  return { name: plainText(name), symbol: plainText(symbol), uri: plainText(uri) && uri.length <= 200 ? uri : null, sellerFeeBasisPoints, primarySaleHappened, isMutable, collection, creators: list };
}

// ---- the asset id ------------------------------------------------------------------------------

function isOnCurve(bytes: Uint8Array): boolean {
  try {
    Point.fromBytes(bytes);
    return true;
  } catch {
    return false;
  }
}

/** findProgramAddress(seeds, program), synchronously. */
function programAddress(seeds: readonly Uint8Array[], program: string): string {
  const programBytes = base58.decode(program);
  for (let bump = 255; bump >= 0; bump--) {
    const hash = createHash('sha256');
    for (const seed of seeds) hash.update(seed);
    hash.update(Uint8Array.of(bump)).update(programBytes).update('ProgramDerivedAddress');
    const candidate = new Uint8Array(hash.digest());
    if (!isOnCurve(candidate)) return base58.encode(candidate);
  }
  throw new Error('no program address');
}

/** A compressed NFT's asset id: Bubblegum's PDA ["asset", tree, nonce as u64 LE]. */
export function compressedAssetId(tree: string, nonce: bigint | number): string {
  const le = new Uint8Array(8);
  new DataView(le.buffer).setBigUint64(0, BigInt(nonce), true);
  return programAddress([new TextEncoder().encode('asset'), base58.decode(tree), le], BUBBLEGUM_PROGRAM);
}

// ---- the leaf Bubblegum logged -------------------------------------------------------------------

interface LeafEvent {
  readonly id: string;
  readonly owner: string;
  readonly delegate: string;
  readonly nonce: bigint;
}

/**
 * The LeafSchema in a noop instruction's data: AccountCompressionEvent::ApplicationData (1), V1 (0), a u32
 * length, then BubblegumEventType::LeafSchemaEvent (1), a version byte, LeafSchema V1 (0) or V2 (1): id, owner,
 * delegate, nonce.
 */
export function leafEventOf(data: Uint8Array | null): LeafEvent | null {
  if (!data) return null;
  try {
    const r = new Reader(data);
    if (r.u8() !== 1 || r.u8() !== 0) return null;
    r.u32();
    if (r.u8() !== 1) return null;
    r.u8(); // version
    if (r.u8() > 1) return null;
    return { id: r.pubkey(), owner: r.pubkey(), delegate: r.pubkey(), nonce: r.u64() };
  } catch {
    return null;
  }
}

// ---- the instructions ----------------------------------------------------------------------------

/** Positions in an instruction's accounts (from the IDL), and how its arguments begin. */
interface Layout {
  readonly action: CompressedNftAction['action'];
  readonly owner: number;
  readonly delegate?: number;
  readonly newOwner?: number;
  readonly newDelegate?: number;
  readonly tree?: number;
  readonly collection?: number;
  /** The arguments: a mint's metadata, or a leaf's proof fields ending in nonce and index. */
  readonly args: 'metadata' | 'metadata_v2' | 'leaf' | 'leaf_v2' | 'none';
}

const LAYOUTS: Readonly<Record<string, Layout>> = {
  mint_v1: { action: 'mint', owner: 1, delegate: 2, tree: 3, args: 'metadata' },
  mint_to_collection_v1: { action: 'mint', owner: 1, delegate: 2, tree: 3, collection: 8, args: 'metadata' },
  mint_v2: { action: 'mint', owner: 4, delegate: 5, tree: 6, collection: 7, args: 'metadata_v2' },
  transfer: { action: 'transfer', owner: 1, delegate: 2, newOwner: 3, tree: 4, args: 'leaf' },
  transfer_v2: { action: 'transfer', owner: 3, delegate: 4, newOwner: 5, tree: 6, collection: 7, args: 'leaf_v2' },
  burn: { action: 'burn', owner: 1, delegate: 2, tree: 3, args: 'leaf' },
  burn_v2: { action: 'burn', owner: 3, delegate: 4, tree: 5, collection: 6, args: 'leaf_v2' },
  delegate: { action: 'other', owner: 1, delegate: 2, newDelegate: 3, tree: 4, args: 'leaf' },
  delegate_v2: { action: 'other', owner: 2, delegate: 3, newDelegate: 4, tree: 5, args: 'leaf_v2' },
  redeem: { action: 'other', owner: 1, delegate: 2, tree: 3, args: 'leaf' },
  cancel_redeem: { action: 'other', owner: 1, tree: 2, args: 'none' },
  decompress_v1: { action: 'other', owner: 1, args: 'metadata' },
};

/** nonce and index after root, data hash and creator hash (v2: an optional asset data hash and flags between). */
function leafArgs(r: Reader, v2: boolean): { nonce: bigint; index: number } {
  r.skip(96);
  if (v2) {
    r.option(() => r.skip(32));
    r.option(() => r.u8());
  }
  return { nonce: r.u64(), index: r.u32() };
}

function describeOne(ix: NormalizedInstruction, name: string, inner: boolean, leaf: LeafEvent | null): CompressedNftAction | null {
  const layout = LAYOUTS[name];
  if (!layout) return null;
  const at = (i: number | undefined) => (i === undefined ? null : (ix.accounts[i] ?? null));
  let metadata: CompressedNftMetadata | null = null;
  let nonce: bigint | null = leaf?.nonce ?? null;
  try {
    const r = new Reader((ix.data ?? new Uint8Array(0)).subarray(8));
    if (layout.args === 'metadata' || layout.args === 'metadata_v2') metadata = metadataArgs(r, layout.args === 'metadata_v2');
    else if (layout.args === 'leaf' || layout.args === 'leaf_v2') nonce = leafArgs(r, layout.args === 'leaf_v2').nonce;
  } catch {
    // arguments cut short or not of this layout: what the accounts and the logged leaf say still stands
  }
  const tree = at(layout.tree);
  const owner = at(layout.owner);
  const delegate = at(layout.delegate);
  const minted = layout.action === 'mint';
  const ownerAfter = layout.action === 'burn' ? null : leaf?.owner ?? at(layout.newOwner) ?? owner;
  const delegateAfter =
    layout.action === 'burn' ? null : leaf?.delegate ?? at(layout.newDelegate) ?? (layout.newOwner !== undefined ? ownerAfter : delegate);
  return {
    instructionIndex: ix.topLevelIndex,
    inner,
    instruction: name,
    action: layout.action,
    assetId: leaf?.id ?? (tree && nonce !== null ? compressedAssetId(tree, nonce) : null),
    tree,
    leafIndex: nonce === null || nonce > BigInt(Number.MAX_SAFE_INTEGER) ? null : Number(nonce),
    leafOwnerBefore: minted ? null : owner,
    leafOwnerAfter: ownerAfter,
    leafDelegateBefore: minted ? null : delegate,
    leafDelegateAfter: delegateAfter,
    collection: at(layout.collection) ?? metadata?.collection?.key ?? null,
    metadata,
  };
}

/**
 * Every Bubblegum instruction of the transaction that touched a compressed NFT, top-level or inner (a
 * marketplace's CPI), in order, each with the leaf it logged through the noop program right after it.
 */
export function compressedNftActions(tx: NormalizedTransaction): CompressedNftAction[] {
  const all = [...tx.instructions.map((ix) => [ix, false] as const), ...(tx.innerInstructions ?? []).map((ix) => [ix, true] as const)];
  if (!all.some(([ix]) => ix.programId === BUBBLEGUM_PROGRAM)) return [];
  const inner = tx.innerInstructions ?? [];
  const out: CompressedNftAction[] = [];
  for (const [ix, isInner] of all) {
    if (ix.programId !== BUBBLEGUM_PROGRAM) continue;
    const name = identifyInstruction(ix)?.name;
    if (!name) continue;
    // the first noop under this invocation that holds a LeafSchema (its own, before the compression program's)
    const from = isInner ? inner.indexOf(ix) + 1 : inner.findIndex((i) => i.topLevelIndex === ix.topLevelIndex);
    let leaf: LeafEvent | null = null;
    if (from >= 0) {
      for (let j = from; j < inner.length && inner[j]!.topLevelIndex === ix.topLevelIndex; j++) {
        const candidate = inner[j]!;
        if (isInner && j > from && candidate.programId === BUBBLEGUM_PROGRAM) break;
        if (candidate.programId !== NOOP_PROGRAM && candidate.programId !== MPL_NOOP_PROGRAM) continue;
        leaf = leafEventOf(candidate.data);
        if (leaf) break;
      }
    }
    const described = describeOne(ix, name, isInner, leaf);
    if (described) out.push(described);
  }
  return out;
}

// ---- told from a side ----------------------------------------------------------------------------

/** `"Golden Hues" (asset 3wqku5…dKLs)`, or `asset 3wqku5…dKLs` without a plain name. */
function nftLabel(nft: CompressedNftAction): string {
  const asset = nft.assetId ? `asset ${shortenAddress(nft.assetId)}` : 'an unknown asset';
  return nft.metadata?.name ? `"${nft.metadata.name}" (${asset})` : asset;
}

/**
 * What happened to each compressed NFT, from `speaker`'s side: "Received compressed NFT X from A", "Sent
 * compressed NFT X to B", "Minted compressed NFT X to B", "Burned compressed NFT X"; another's NFT is told with
 * its holders ("compressed NFT X moved from A to B"). Joined with "; ", capitalized; '' when there is none.
 */
export function compressedNftSentence(nfts: readonly CompressedNftAction[], speaker: string): string {
  const parts = nfts.map((nft) => {
    const label = `compressed NFT ${nftLabel(nft)}`;
    const who = (a: string | null) => (a ? shortenAddress(a) : 'an unknown owner');
    switch (nft.action) {
      case 'mint':
        return nft.leafOwnerAfter === speaker ? `received ${label}, newly minted` : `minted ${label} to ${who(nft.leafOwnerAfter)}`;
      case 'transfer':
        if (nft.leafOwnerAfter === speaker) return `received ${label} from ${who(nft.leafOwnerBefore)}`;
        if (nft.leafOwnerBefore === speaker) return `sent ${label} to ${who(nft.leafOwnerAfter)}`;
        return `${label} moved from ${who(nft.leafOwnerBefore)} to ${who(nft.leafOwnerAfter)}`;
      case 'burn':
        return nft.leafOwnerBefore === speaker ? `burned ${label}` : `burned ${label} held by ${who(nft.leafOwnerBefore)}`;
      case 'other':
        return `${nft.instruction} on ${label} held by ${who(nft.leafOwnerBefore)}`;
    }
  });
  const text = parts.join('; ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
