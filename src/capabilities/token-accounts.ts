import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../chain/program-ids.ts';
import { mintSymbol } from '../chain/format.ts';
import { Type as t } from '@sinclair/typebox';
import { defineCapability } from './capability.ts';
import { base58Address, nullable, rawAmount, uiAmount } from './output.ts';
import { EXAMPLE_WALLET } from './examples.ts';
import { address, network } from './params.ts';

interface TokenAccountInfo {
  mint: string;
  state: string;
  isNative?: boolean;
  tokenAmount: { amount: string; decimals: number; uiAmountString: string };
}

interface KeyedAccount {
  pubkey: string;
  account: { owner: string; data: { parsed?: { type?: string; info?: TokenAccountInfo } } | [string, string] };
}

export const tokenAccounts = defineCapability({
  name: 'token-accounts',
  tool: 'get_token_accounts',
  method: 'GET',
  title: 'Token holdings',
  summary:
    "Every SPL Token and Token-2022 holding of a wallet: mint, account, raw amount with decimals, exact UI amount.",
  description:
    "Every token account a wallet owns under both the SPL Token and Token-2022 programs: mint, raw amount (string), decimals and exact UI amount. Use it to see what tokens a wallet holds before trading or transferring.",
  paid: true,
  params: { wallet: address('Wallet address (base58)', EXAMPLE_WALLET), network: network() },
  output: t.Object({
    wallet: base58Address('The wallet asked about'),
    tokenCount: t.Integer({ minimum: 0, description: 'Number of token accounts listed' }),
    tokens: t.Array(
      t.Object({
        account: base58Address('The token account'),
        mint: base58Address('Mint of the token'),
        symbol: nullable(t.String({ description: 'Symbol of a well-known mint, else null' })),
        tokenProgram: base58Address('Owning program: SPL Token or Token-2022'),
        amount: rawAmount('Raw amount in base units'),
        decimals: t.Integer({ minimum: 0, maximum: 255 }),
        uiAmountString: uiAmount('amount / 10^decimals, exact'),
        state: t.String({ description: 'initialized or frozen' }),
      }),
      { description: 'Largest holdings first' },
    ),
  }),
  async run(ctx, { wallet, network }) {
    const rpc = ctx.rpc(network);
    const [classic, t22] = await Promise.all(
      [TOKEN_PROGRAM, TOKEN_2022_PROGRAM].map((programId) =>
        rpc.call<{ value: KeyedAccount[] }>('getTokenAccountsByOwner', [wallet, { programId }, { encoding: 'jsonParsed', commitment: 'confirmed' }]),
      ),
    );
    const tokens = [...classic!.value, ...t22!.value].flatMap(({ pubkey, account }) => {
      const info = Array.isArray(account.data) ? undefined : account.data.parsed?.info;
      if (!info) return [];
      return [
        {
          account: pubkey,
          mint: info.mint,
          symbol: mintSymbol(info.mint),
          tokenProgram: account.owner,
          amount: info.tokenAmount.amount,
          decimals: info.tokenAmount.decimals,
          uiAmountString: info.tokenAmount.uiAmountString,
          state: info.state,
        },
      ];
    });
    // Largest holdings first is what a reader wants; ties keep the node's order.
    tokens.sort((a, b) => (BigInt(b.amount) * 10n ** BigInt(a.decimals) > BigInt(a.amount) * 10n ** BigInt(b.decimals) ? 1 : -1));
    return { wallet, tokenCount: tokens.length, tokens };
  },
});
