// Every capability the gateway sells. Adding one is a new file and one line here; REST, MCP, the
// manifest and the OpenAPI document pick it up from this list.
import { balance } from './balance.ts';
import { blockhash } from './blockhash.ts';
import type { Capability } from './capability.ts';
import { decodeTx } from './decode-tx.ts';
import { findAta } from './find-ata.ts';
import { optimalFee } from './optimal-fee.ts';
import { simulate } from './simulate.ts';
import { tokenAccounts } from './token-accounts.ts';
import { tokenProfile } from './token-profile.ts';
import { transactions } from './transactions.ts';

export const CAPABILITIES: readonly Capability[] = [balance, blockhash, tokenAccounts, transactions, findAta, tokenProfile, optimalFee, decodeTx, simulate];
