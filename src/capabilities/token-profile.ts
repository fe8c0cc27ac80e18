import { holderFromRpc, ownerAccountFromRpc, TOP_N, tokenAccountOwnerFromRpc, type Holder } from '../chain/token/holders.ts';
import { parseMintAccount } from '../chain/token/mint.ts';
import { Type as t } from '@sinclair/typebox';
import { buildTokenProfile, FLAG_RULES } from '../chain/token/risk.ts';
import { UpstreamError, type Rpc } from '../chain/upstream.ts';
import type { Logger } from '../log.ts';
import { notFound } from '../errors.ts';
import { defineCapability } from './capability.ts';
import { base58Address, jsonValue, nullable, rawAmount, uiAmount } from './output.ts';
import { EXAMPLE_MINT } from './examples.ts';
import { address, network } from './params.ts';

/**
 * The largest holders with their owners and what kind of owner each is. Holder data is an
 * addition to the profile, not its core: when the node cannot give it (some providers refuse
 * getTokenLargestAccounts under load), the profile is still answered and says holders were
 * unavailable.
 */
async function largestHolders(rpc: Rpc, mint: string, log: Logger): Promise<Holder[]> {
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

const percent = (description: string) => nullable(t.Number({ minimum: 0, maximum: 100, description: `${description}; percent of supply, 4 decimals; null when supply is 0` }));
const SEVERITY = t.Union([t.Literal('high'), t.Literal('medium'), t.Literal('low'), t.Literal('info')]);
const FLAG = t.Union(
  Object.keys(FLAG_RULES).map((f) => t.Literal(f)),
  { description: 'Machine-readable flag name' },
);
const HOLDER_KIND = t.Union([t.Literal('wallet'), t.Literal('program'), t.Literal('burn'), t.Literal('unknown')]);
const CONCENTRATION_VIEW = t.Object({
  top1Percent: percent('Largest counted holder'),
  top10Percent: percent('Up to 10 largest counted holders together'),
  top1Raw: rawAmount('Raw amount of the largest counted holder'),
  top10Raw: rawAmount('Raw amount of the top 10 together'),
  top1Address: nullable(base58Address('Token account of the largest counted holder')),
  holdersCounted: t.Integer({ minimum: 0, maximum: 10 }),
});

const KIND_SHARE = t.Object({ holders: t.Integer({ minimum: 0 }), percent: percent('Share'), raw: rawAmount('Raw amount') });

const OUTPUT = t.Object({
  mint: base58Address('The mint'),
  tokenProgram: base58Address('Owning program id'),
  program: t.Union([t.Literal('spl-token'), t.Literal('spl-token-2022')]),
  decimals: t.Integer({ minimum: 0, maximum: 255 }),
  supply: rawAmount('Total supply in base units'),
  uiSupply: uiAmount('supply / 10^decimals, exact'),
  mintAuthority: nullable(base58Address('Who can mint more; null when revoked (fixed supply)')),
  freezeAuthority: nullable(base58Address('Who can freeze holders; null when revoked')),
  extensions: t.Array(
    t.Object({ extension: t.String(), state: t.Optional(t.Record(t.String(), jsonValue())) }),
    { description: 'Token-2022 extensions as the node\'s jsonParsed shows them (u64 beyond 2^53 as strings); [] for SPL Token' },
  ),
  topHolders: t.Array(
    t.Object({
      address: base58Address('Token account'),
      owner: nullable(base58Address('Owner of the token account, when resolved')),
      amount: rawAmount('Raw amount'),
      uiAmountString: uiAmount('amount / 10^decimals, exact'),
      percent: percent('Share of supply'),
      kind: HOLDER_KIND,
      kindReason: t.String(),
    }),
    { maxItems: 10, description: 'The 10 largest holders; [] when the node could not list them' },
  ),
  security: t.Object({
    riskLevel: t.Union([t.Literal('LOW'), t.Literal('MEDIUM'), t.Literal('HIGH')]),
    flags: t.Array(FLAG),
    isHoneypotRisk: t.Boolean({ description: 'Something can block or heavily tax a holder\'s exit' }),
    analysis: t.String({ description: 'One sentence' }),
    details: t.Array(
      t.Object({
        flag: FLAG,
        severity: SEVERITY,
        scoredAs: SEVERITY,
        canBlockExit: t.Boolean(),
        summary: t.String(),
        reason: t.String(),
        issuerControl: nullable(t.String({ description: 'Set when the flag is an expected control of a known regulated issuer' })),
        data: t.Record(t.String(), t.Union([t.String(), t.Number(), t.Boolean(), t.Null()]), { description: 'The numbers behind the flag (raw amounts as strings)' }),
      }),
    ),
    knownIssuer: nullable(t.Object({ symbol: t.String(), issuer: t.String(), category: t.Literal('regulated-stablecoin') })),
    concentration: nullable(
      t.Object({
        supply: rawAmount('Denominator of every percent'),
        holdersSeen: t.Integer({ minimum: 0 }),
        all: CONCENTRATION_VIEW,
        excludingProgramAndBurn: CONCENTRATION_VIEW,
        byKind: t.Object({ wallet: KIND_SHARE, program: KIND_SHARE, burn: KIND_SHARE, unknown: KIND_SHARE }, { description: 'Share of supply in the seen holders, by kind' }),
      }),
    ),
  }),
});

export const tokenProfile = defineCapability({
  name: 'token-profile',
  tool: 'token_profile',
  method: 'GET',
  title: 'Token security profile',
  summary:
    "A token mint's security profile: supply, authorities, Token-2022 extensions, top 10 holders, a risk level with flags and a one-sentence analysis. Use it before buying or accepting an unfamiliar token.",
  description:
    "Security profile of a token mint (SPL Token or Token-2022): decimals, supply, mint and freeze authorities, every Token-2022 extension, the top 10 holders with their owners and share of supply, and `security` with riskLevel (LOW/MEDIUM/HIGH), machine-readable flags with reasons, isHoneypotRisk and a one-sentence analysis. Use it before buying or accepting an unfamiliar token.",
  paid: true,
  params: { mint: address('Token mint address (base58)', EXAMPLE_MINT), network: network() },
  output: OUTPUT,
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
