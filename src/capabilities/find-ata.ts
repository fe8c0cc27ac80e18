import { associatedTokenAddresses } from '../chain/ata.ts';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../chain/program-ids.ts';
import { notFound } from '../errors.ts';
import { Type as t } from '@sinclair/typebox';
import { defineCapability } from './capability.ts';
import { base58Address, rawAmount, uiAmount } from './output.ts';
import { EXAMPLE_MINT, EXAMPLE_WALLET } from './examples.ts';
import { address, network } from './params.ts';

interface ParsedAccount {
  owner: string;
  data: { parsed?: { type?: string; info?: { tokenAmount?: { amount: string; decimals: number; uiAmountString: string } } } } | [string, string];
}

export const findAta = defineCapability({
  name: 'find-ata',
  tool: 'find_ata',
  method: 'GET',
  title: 'Associated token account',
  summary:
    "A wallet's associated token account for a mint (the mint's own token program) and whether it exists. Use it before sending a token.",
  description:
    "Derives a wallet's associated token account (ATA) for a mint, using the mint's own token program (SPL Token or Token-2022), and says whether that account exists on chain and what it holds. Use it before sending tokens to know the destination account and whether it must be created.",
  paid: true,
  params: {
    wallet: address('Owner wallet address (base58)', EXAMPLE_WALLET),
    mint: address('Token mint address (base58)', EXAMPLE_MINT),
    network: network(),
  },
  output: t.Object({
    wallet: base58Address('The owner wallet'),
    mint: base58Address('The mint'),
    ataAddress: base58Address('The associated token account, derived with the mint\'s token program'),
    tokenProgram: base58Address('The mint\'s token program (SPL Token or Token-2022)'),
    exists: t.Boolean({ description: 'Whether the account exists on chain (if not, it must be created before receiving)' }),
    amount: t.Optional(rawAmount('Raw balance, when the account exists')),
    decimals: t.Optional(t.Integer({ minimum: 0, maximum: 255 })),
    uiAmountString: t.Optional(uiAmount('amount / 10^decimals, exact')),
  }),
  async run(ctx, { wallet, mint, network }) {
    // Both candidate ATAs in the same round trip as the mint; the mint's owner picks the right one.
    const { classic, token2022: t22 } = await associatedTokenAddresses(wallet, mint);
    const res = await ctx
      .rpc(network)
      .call<{ value: (ParsedAccount | null)[] }>('getMultipleAccounts', [[mint, classic, t22], { encoding: 'jsonParsed', commitment: 'confirmed' }], {
        // An account that exists is reused for one second (about the lag of 'confirmed' itself);
        // an answer without an ATA is never reused, so an ATA just created is seen at once.
        cacheMs: 1000,
        cacheWhen: (v) => {
          const [m, a, b] = (v as { value: unknown[] }).value;
          return m != null && (a != null || b != null);
        },
      });
    const [mintAccount, classicAta, t22Ata] = res.value;
    if (!mintAccount) throw notFound(`Mint not found on ${network}`, { mint });
    const isMint = !Array.isArray(mintAccount.data) && mintAccount.data.parsed?.type === 'mint';
    if (!isMint || (mintAccount.owner !== TOKEN_PROGRAM && mintAccount.owner !== TOKEN_2022_PROGRAM)) {
      throw notFound('Not a token mint', { mint, owner: mintAccount.owner });
    }
    const tokenProgram = mintAccount.owner;
    const ata = tokenProgram === TOKEN_PROGRAM ? classicAta : t22Ata;
    const amount = ata && !Array.isArray(ata.data) ? ata.data.parsed?.info?.tokenAmount : undefined;
    return {
      wallet,
      mint,
      ataAddress: tokenProgram === TOKEN_PROGRAM ? classic : t22,
      tokenProgram,
      exists: ata !== null && ata !== undefined,
      ...(amount ? { amount: amount.amount, decimals: amount.decimals, uiAmountString: amount.uiAmountString } : {}),
    };
  },
});
