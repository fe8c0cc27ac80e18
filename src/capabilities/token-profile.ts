import { holderFromRpc, ownerAccountFromRpc, TOP_N, tokenAccountOwnerFromRpc, type Holder } from '../chain/token/holders.ts';
import { parseMintAccount } from '../chain/token/mint.ts';
import { buildTokenProfile } from '../chain/token/risk.ts';
import { UpstreamError, type Upstream } from '../chain/upstream.ts';
import type { Logger } from '../log.ts';
import { notFound } from '../errors.ts';
import { defineCapability } from './capability.ts';
import { EXAMPLE_MINT } from './examples.ts';
import { address, network } from './params.ts';

/**
 * The largest holders with their owners and what kind of owner each is. Holder data is an
 * addition to the profile, not its core: when the node cannot give it (some providers refuse
 * getTokenLargestAccounts under load), the profile is still answered and says holders were
 * unavailable.
 */
async function largestHolders(rpc: Upstream, mint: string, log: Logger): Promise<Holder[]> {
  try {
    const largest = await rpc.call<{ value: { address: string; amount: string }[] }>('getTokenLargestAccounts', [mint, { commitment: 'confirmed' }], { cacheMs: 5000 });
    const rows = largest.value.slice(0, TOP_N);
    if (rows.length === 0) return [];
    const tokenAccounts = await rpc.call<{ value: unknown[] }>('getMultipleAccounts', [rows.map((r) => r.address), { encoding: 'jsonParsed', commitment: 'confirmed' }]);
    const owners = tokenAccounts.value.map(tokenAccountOwnerFromRpc);
    const distinct = [...new Set(owners.filter((o): o is string => o !== null))];
    // Only the owner, executable flag and existence matter here, not the data.
    const ownerAccounts = distinct.length
      ? await rpc.call<{ value: unknown[] }>('getMultipleAccounts', [distinct, { encoding: 'base64', dataSlice: { offset: 0, length: 0 }, commitment: 'confirmed' }])
      : { value: [] };
    const byOwner = new Map(distinct.map((o, i) => [o, ownerAccountFromRpc(ownerAccounts.value[i] ?? null)]));
    return rows.map((row, i) => holderFromRpc(row, owners[i] ?? null, owners[i] ? byOwner.get(owners[i]!) : undefined));
  } catch (e) {
    if (!(e instanceof UpstreamError)) throw e;
    log.warn('token holders unavailable', { mint, error: e.message });
    return [];
  }
}

export const tokenProfile = defineCapability({
  name: 'token-profile',
  tool: 'token_profile',
  method: 'GET',
  title: 'Token security profile',
  description:
    "Security profile of a token mint (SPL Token or Token-2022): decimals, supply, mint and freeze authorities, every Token-2022 extension, the top 10 holders with their owners and share of supply, and `security` with riskLevel (LOW/MEDIUM/HIGH), machine-readable flags with reasons, isHoneypotRisk and a one-sentence analysis. Use it before buying or accepting an unfamiliar token.",
  paid: true,
  params: { mint: address('Token mint address (base58)', EXAMPLE_MINT), network: network() },
  async run(ctx, { mint, network }) {
    const rpc = ctx.rpc(network);
    const [account, epoch, holders] = await Promise.all([
      rpc.call<{ value: unknown }>('getAccountInfo', [mint, { encoding: 'jsonParsed', commitment: 'confirmed' }], { cacheMs: 5000 }),
      // The epoch decides which of a transfer fee's two settings is in force; it turns over every ~2 days.
      rpc.call<{ epoch: number }>('getEpochInfo', [{ commitment: 'confirmed' }], { cacheMs: 60_000 }),
      largestHolders(rpc, mint, ctx.log),
    ]);
    if (account.value === null) throw notFound(`No account at this address on ${network}`, { mint });
    const info = parseMintAccount(mint, account.value);
    if (!info) throw notFound('Not a token mint', { mint });
    return buildTokenProfile(info, holders, { currentEpoch: epoch.epoch });
  },
});
