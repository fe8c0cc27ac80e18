// A claim's 404, for the wallet's owner (the claim checked its signature first): what the wallet
// still holds and the way to a new key. Credit belongs to the wallet, never to a key: a wallet whose
// keys were revoked (or whose key was lost) keeps it, and a deposit issues a key that carries it.
import { formatSol } from '../chain/format.ts';
import type { Config } from '../config.ts';
import { GatewayError } from '../errors.ts';
import type { AccountView } from './credit.ts';

export function noPendingKey(
  refusal: GatewayError,
  wallet: string,
  account: AccountView | null,
  config: Pick<Config, 'gatewayAddress' | 'minDepositLamports' | 'paymentNetwork'>,
): GatewayError {
  const creditLamports = account?.creditLamports ?? 0n;
  const freeCallsRemaining = account?.freeCalls ?? 0;
  const held = creditLamports > 0n || freeCallsRemaining > 0;
  const { gatewayAddress: payTo, minDepositLamports, paymentNetwork: network } = config;
  const holds = held ? `This wallet still holds ${creditLamports} lamports (${formatSol(creditLamports)} SOL) of credit and ${freeCallsRemaining} free calls, kept for it. ` : '';
  const way = payTo
    ? `A key is issued after a deposit: send at least ${minDepositLamports} lamports (${formatSol(minDepositLamports)} SOL) to ${payTo} on ${network} from this wallet, then claim again${held ? '; the new key carries the credit' : ''}.`
    : 'This gateway takes no deposits (no deposit address is configured), so it issues no new keys.';
  return new GatewayError(404, {
    ...refusal.body,
    code: held ? 'credit_without_key' : 'no_pending_key',
    wallet,
    creditLamports,
    freeCallsRemaining,
    ...(payTo ? { payTo, network, minDepositLamports } : {}),
    hint: holds + way,
  });
}
