import { describeTransactionError } from '../chain/tx/errors.ts';
import { Type as t } from '@sinclair/typebox';
import { errorView } from '../chain/tx/describe.ts';
import {
  type AccountState,
  LookupTableError,
  accountChanges,
  accountState,
  lookupTableAddresses,
  simulatedOwnerChanges,
  wireAccounts,
  writableAccounts,
} from '../chain/tx/simulated.ts';
import type { Rpc } from '../chain/upstream.ts';
import { badRequest } from '../errors.ts';
import { big } from '../json.ts';
import { defineCapability } from './capability.ts';
import { base58Address, nodeError, nullable, u64 } from './output.ts';
import { ACCOUNT_CHANGE, OWNER_CHANGES, TX_ERROR } from './decode-tx.ts';
import { base64Transaction, network } from './params.ts';

// An unsigned legacy transfer of 0.001 SOL between two mainnet addresses (the signature is zeros).
const EXAMPLE_TX =
  'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABAAEDdheBW1o5mpmLum60xlPLO5WkwivTyvoB7aqUo2OcEWDG+nrzvtutOj1l82qryXQxsbvkwtL24OR8pgIDRS9dYQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA7mR0xSJrpalfBq0I511boL3w/AERVbEygx5T81V4P1sBAgIAAQwCAAAAQEIPAAAAAAA=';

export interface SimulationValue {
  err: unknown;
  accounts?: unknown[] | null;
  logs: string[] | null;
  unitsConsumed?: number;
  returnData?: { programId: string; data: [string, string] } | null;
  fee?: number | null;
  replacementBlockhash?: { blockhash: string; lastValidBlockHeight: number } | null;
}

/** simulateTransaction's value as the gateway answers it (pure); `programIdOf` locates a failed instruction's program. */
export function simulationBody(v: SimulationValue, programIdOf?: (instructionIndex: number) => string | undefined) {
  const logs = v.logs ?? [];
  return {
    success: v.err === null,
    err: v.err,
    error: errorView(describeTransactionError(v.err, { logs, programIdOf }), v.err),
    logs,
    unitsConsumed: v.unitsConsumed ?? null,
    returnData: v.returnData ? { programId: v.returnData.programId, data: v.returnData.data[0], encoding: 'base64' as const } : null,
    fee: v.fee ?? null,
    replacementBlockhash: v.replacementBlockhash ?? null,
  };
}

export const simulate = defineCapability({
  name: 'simulate',
  tool: 'simulate_chain_transaction',
  method: 'POST',
  title: 'Simulate a transaction',
  summary:
    "Simulates a base64 transaction without sending it (unsigned or stale is fine): success, error, logs, compute units, the exact SOL and token changes it would make. Use it before signing.",
  description:
    'Simulates a base64 wire transaction (legacy or v0, at most 1232 bytes) without signature checks and with its blockhash replaced by a current one, so an unsigned or stale transaction can be tested. Returns success, the error (with a readable description), program logs, compute units consumed, return data, and what it would move: ownerChanges lists, for every signer and every owner whose token balances would move, the exact SOL and token changes (raw integer strings with decimals, SOL net of the fee, wrapped SOL folded in), and accountChanges lists each writable account whose lamports or token amount would change (address lookup tables are read to find the writable accounts of a v0 transaction). Use it to see what a transaction will pay and receive before signing. Nothing is sent to the chain.',
  paid: true,
  params: { transaction: base64Transaction('Serialized transaction, standard base64', EXAMPLE_TX), network: network() },
  output: t.Object({
    success: t.Boolean(),
    err: nodeError('The node\'s error object; null on success'),
    error: nullable(TX_ERROR),
    logs: t.Array(t.String(), { description: 'Program log lines' }),
    unitsConsumed: nullable(u64('Compute units consumed')),
    returnData: nullable(t.Object({ programId: base58Address('Program that set the data'), data: t.String({ description: 'The data, base64' }), encoding: t.Literal('base64') })),
    fee: nullable(u64('Fee in lamports the transaction would pay, when the node tells')),
    replacementBlockhash: nullable(t.Object({ blockhash: t.String(), lastValidBlockHeight: u64('Last valid block height') })),
    slot: u64('Slot the simulation ran at'),
    ownerChanges: nullable(OWNER_CHANGES),
    accountChanges: nullable(
      t.Array(ACCOUNT_CHANGE, {
        description: 'Each writable account whose lamports or token amount the simulation changed; null when the node returned no account states',
      }),
    ),
  }),
  async run(ctx, { transaction, network }) {
    const rpc = ctx.rpc(network);
    const wire = wireAccounts(transaction);
    const tables = await readLookupTables(rpc, wire.lookups.map((l) => l.table));
    let addresses: string[];
    try {
      addresses = writableAccounts(wire, tables);
    } catch (e) {
      if (e instanceof LookupTableError) throw badRequest(e.message, 'A v0 transaction must reference existing address lookup tables and entries.');
      throw e;
    }
    // State before, then the simulation asked for the same accounts after: the difference is what it moves.
    const before = await readAccounts(rpc, addresses);
    const res = await rpc.call<{ context: { slot: number }; value: SimulationValue }>('simulateTransaction', [
      transaction,
      {
        encoding: 'base64',
        sigVerify: false,
        replaceRecentBlockhash: true,
        commitment: 'confirmed',
        accounts: { addresses, encoding: 'jsonParsed' },
      },
    ]);
    const post = res.value.accounts;
    const changes =
      Array.isArray(post) && post.length === addresses.length
        ? { addresses, signers: wire.signers, fee: res.value.fee == null ? null : big(res.value.fee), before, after: post.map(accountState) }
        : null;
    return {
      ...simulationBody(res.value, (i) => wire.instructionPrograms[i]),
      slot: res.context.slot,
      ownerChanges: changes ? simulatedOwnerChanges(changes) : null,
      accountChanges: changes ? accountChanges(changes) : null,
    };
  },
});

const MAX_ACCOUNTS_PER_CALL = 100;

async function multipleAccounts(rpc: Rpc, addresses: readonly string[], encoding: 'base64' | 'jsonParsed'): Promise<unknown[]> {
  const out: unknown[] = [];
  for (let i = 0; i < addresses.length; i += MAX_ACCOUNTS_PER_CALL) {
    const chunk = addresses.slice(i, i + MAX_ACCOUNTS_PER_CALL);
    const res = await rpc.call<{ value: unknown[] }>('getMultipleAccounts', [chunk, { encoding, commitment: 'confirmed' }]);
    out.push(...chunk.map((_a, j) => res.value[j] ?? null));
  }
  return out;
}

async function readAccounts(rpc: Rpc, addresses: readonly string[]): Promise<(AccountState | null)[]> {
  return (await multipleAccounts(rpc, addresses, 'jsonParsed')).map(accountState);
}

/** Lookup table address -> its addresses (tables that do not exist are left out). */
async function readLookupTables(rpc: Rpc, tables: readonly string[]): Promise<Map<string, string[]>> {
  const unique = [...new Set(tables)];
  const accounts = await multipleAccounts(rpc, unique, 'base64');
  const map = new Map<string, string[]>();
  accounts.forEach((acc, i) => {
    const data = (acc as { data?: unknown } | null)?.data;
    if (Array.isArray(data) && typeof data[0] === 'string') map.set(unique[i]!, lookupTableAddresses(new Uint8Array(Buffer.from(data[0], 'base64'))));
  });
  return map;
}
