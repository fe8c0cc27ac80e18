// Metaplex Auction House (hausS13…, tests/fixtures/programs/mpl_auction_house.so) instructions, encoded from
// its IDL (metaplex-program-library auction-house/js/idl/auction_house.json: create_auction_house, public_buy,
// cancel) and its PDA seeds (auction-house/program/src/pda.rs). Auctions settle in SOL (the native mint).

import { address, getAddressEncoder, getProgramDerivedAddress, isAddress, type Address, type Instruction, type KeyPairSigner } from '@solana/kit';
import { Borsh, anchorIx, pda, r, rs, w, ws } from './amm/encode.ts';

export const AUCTION_HOUSE = address('hausS13jsjafwWwGqZTUQRmWyvyxn9EQpqMwV1PBBmk');
export const TOKEN_METADATA = address('metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s');
export const NATIVE_MINT = address('So11111111111111111111111111111111111111112');
const TOKEN = address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
const SYSTEM = address('11111111111111111111111111111111');
const ATA_PROGRAM = address('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL');
const RENT = address('SysvarRent111111111111111111111111111111111');

const enc = getAddressEncoder();
const u64le = (v: bigint) => new Borsh().u64(v).done();
async function pdaBump(seeds: (string | Address | Uint8Array)[]): Promise<[Address, number]> {
  const bytes = seeds.map((s) => (s instanceof Uint8Array ? s : isAddress(s) ? enc.encode(s) : new TextEncoder().encode(s)));
  const [found, bump] = await getProgramDerivedAddress({ programAddress: AUCTION_HOUSE, seeds: bytes });
  return [found, bump];
}

export interface House {
  house: Address;
  authority: Address;
  feeAccount: Address;
}

/** CreateAuctionHouse: `authority` runs it, 5% seller fee, no sign-off. */
export async function createAuctionHouse(authority: KeyPairSigner): Promise<{ ix: Instruction; house: House }> {
  const [house, bump] = await pdaBump(['auction_house', authority.address, NATIVE_MINT]);
  const [feeAccount, feeBump] = await pdaBump(['auction_house', house, 'fee_payer']);
  const [treasury, treasuryBump] = await pdaBump(['auction_house', house, 'treasury']);
  const data = new Borsh().bytes(anchorIx('create_auction_house')).u8(bump).u8(feeBump).u8(treasuryBump).u16(500).bool(false).bool(false).done();
  const a = authority.address;
  return {
    ix: {
      programAddress: AUCTION_HOUSE,
      accounts: [r(NATIVE_MINT), ws(authority), r(a), w(a), w(a), r(a), w(house), w(feeAccount), w(treasury), r(TOKEN), r(SYSTEM), r(ATA_PROGRAM), r(RENT)],
      data,
    },
    house: { house, authority: a, feeAccount },
  };
}

/** The NFT's Token Metadata account address (the auction house checks only that it exists there). */
export const metadataAddress = (mint: Address) => pda(TOKEN_METADATA, ['metadata', TOKEN_METADATA, mint]);

/** PublicBuy: a bid of `price` lamports for one of `mint`, held in `tokenAccount`, from the bidder's own SOL. */
export async function publicBid(house: House, bidder: KeyPairSigner, mint: Address, tokenAccount: Address, price: bigint): Promise<{ ix: Instruction; tradeState: Address; escrow: Address }> {
  const [escrow, escrowBump] = await pdaBump(['auction_house', house.house, bidder.address]);
  const [tradeState, tradeBump] = await pdaBump(['auction_house', bidder.address, house.house, NATIVE_MINT, mint, u64le(price), u64le(1n)]);
  const data = new Borsh().bytes(anchorIx('public_buy')).u8(tradeBump).u8(escrowBump).u64(price).u64(1n).done();
  return {
    ix: {
      programAddress: AUCTION_HOUSE,
      accounts: [
        rs(bidder),
        w(bidder.address),
        r(bidder.address),
        r(NATIVE_MINT),
        r(tokenAccount),
        r(await metadataAddress(mint)),
        w(escrow),
        r(house.authority),
        r(house.house),
        w(house.feeAccount),
        w(tradeState),
        r(TOKEN),
        r(SYSTEM),
        r(RENT),
      ],
      data,
    },
    tradeState,
    escrow,
  };
}

/** Cancel: the bidder withdraws its bid (the trade state closes; the escrowed SOL stays for a withdraw). */
export function cancelBid(house: House, bidder: KeyPairSigner, mint: Address, tokenAccount: Address, tradeState: Address, price: bigint): Instruction {
  return {
    programAddress: AUCTION_HOUSE,
    accounts: [ws(bidder), w(tokenAccount), r(mint), r(house.authority), r(house.house), w(house.feeAccount), w(tradeState), r(TOKEN)],
    data: new Borsh().bytes(anchorIx('cancel')).u64(price).u64(1n).done(),
  };
}
