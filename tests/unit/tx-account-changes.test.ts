// decode-tx's two accounting views against every recorded mainnet transaction: accountChanges is exactly what
// the node's balance arrays say per address, and ownerChanges is accountChanges regrouped by owner.
import { describe, expect, test } from 'bun:test';
import { big } from '../../src/json';
import { WRAPPED_SOL_MINT } from '../../src/chain/program-ids';
import { createdAccountSigners, ownerChangesOf } from '../../src/chain/tx/changes';
import { rentPaidFor } from '../../src/chain/tx/point-of-view';
import { type DecodeTxBody, describeTransaction } from '../../src/chain/tx/describe';
import { normalizeTransaction } from '../../src/chain/tx/normalize';
import { resolveTokenOwners, tokenOwnersFromTransaction } from '../../src/chain/tx/token-owners';
import { loadRecorded, recordedTransactionFiles } from '../support/recorded-transactions';

type Obj = Record<string, any>;
/** Where token accounts whose owner nobody could tell are grouped: under no owner. */
const UNKNOWN = '(owner unknown)';

async function decoded(file: string): Promise<{ raw: Obj; body: DecodeTxBody }> {
  const raw = (await loadRecorded(file)) as Obj;
  return { raw, body: describeTransaction(raw, { signature: 'requested-signature', network: 'mainnet-beta' }) };
}

/** The node's own token balance for an account index, straight from the recorded meta. */
function recordedToken(list: Obj[] | null | undefined, index: number): Obj | undefined {
  return (list ?? []).find((b) => Number(b.accountIndex) === index);
}

test('the reconciliation covers every recorded transaction', () => {
  expect(recordedTransactionFiles.length).toBeGreaterThanOrEqual(40);
});

describe.each(recordedTransactionFiles)('%s', (file) => {
  test('accountChanges is exactly post minus pre for every address and token account, the fee included', async () => {
    const { raw, body } = await decoded(file);
    const normalized = normalizeTransaction(raw);
    const keys = normalized.accountKeys;
    // a pre-2022 node sent no owner: the one the transaction's own instructions or account roles give, else none
    const given = tokenOwnersFromTransaction(normalized);
    const meta = raw.meta;
    expect(keys.length).toBe(meta.preBalances.length);
    const listed = new Map(body.accountChanges.map((a) => [a.address, a]));
    expect(listed.size).toBe(body.accountChanges.length);
    let total = 0n;
    keys.forEach((address, i) => {
      const pre = big(meta.preBalances[i]);
      const post = big(meta.postBalances[i]);
      const preToken = recordedToken(meta.preTokenBalances, i);
      const postToken = recordedToken(meta.postTokenBalances, i);
      const tokenBefore = big(preToken?.uiTokenAmount.amount ?? 0);
      const tokenAfter = big(postToken?.uiTokenAmount.amount ?? 0);
      const entry = listed.get(address);
      if (pre === post && tokenBefore === tokenAfter) {
        expect(entry).toBeUndefined();
        return;
      }
      expect(entry).toBeDefined();
      expect([entry!.lamportsBefore, entry!.lamportsAfter, entry!.lamportsChange]).toEqual([Number(pre), Number(post), Number(post - pre)]);
      total += big(entry!.lamportsChange);
      const token = postToken ?? preToken;
      expect(entry!.token).toEqual(
        token
          ? {
              mint: token.mint,
              owner: token.owner ?? given.get(address) ?? null,
              decimals: Number(token.uiTokenAmount.decimals),
              before: `${tokenBefore}`,
              after: `${tokenAfter}`,
              change: `${tokenAfter - tokenBefore}`,
            }
          : null,
      );
    });
    // lamports are conserved but for the fee, which the fee payer's own change carries
    expect(total).toBe(-big(meta.fee));
  });

  test('ownerChanges is accountChanges regrouped by owner, the fee apart', async () => {
    const { raw, body } = await decoded(file);
    // the owners as the decoder sees them: a pre-2022 node's ownerless balances given theirs from the instructions or account roles
    const tx = resolveTokenOwners(normalizeTransaction(raw));
    const owners = ownerChangesOf(tx);
    interface Group { sol: bigint; tokenAccountLamports: bigint; wsol: bigint; tokens: Map<string, bigint> }
    const groups = new Map<string, Group>();
    const group = (owner: string) => {
      const g = groups.get(owner) ?? { sol: 0n, tokenAccountLamports: 0n, wsol: 0n, tokens: new Map<string, bigint>() };
      groups.set(owner, g);
      return g;
    };
    for (const a of body.accountChanges) {
      const lamports = big(a.lamportsChange);
      if (a.token) {
        const g = group(a.token.owner ?? UNKNOWN);
        g.sol += lamports;
        g.tokenAccountLamports += lamports;
        if (a.token.mint === WRAPPED_SOL_MINT) g.wsol += big(a.token.change);
        else g.tokens.set(a.token.mint, (g.tokens.get(a.token.mint) ?? 0n) + big(a.token.change));
      } else {
        group(a.address).sol += lamports;
      }
    }
    for (const o of body.ownerChanges) {
      const g = groups.get(o.owner) ?? { sol: 0n, tokenAccountLamports: 0n, wsol: 0n, tokens: new Map() };
      const fee = o.feePayer ? big(raw.meta.fee) : 0n;
      expect(o.feeLamports).toBe(Number(fee));
      // rent another wallet put into the token accounts of an owner that signed nothing is neither its SOL nor its spending
      const paidByOthers = o.signer ? 0n : (rentPaidFor(tx, owners, owners.find((x) => x.owner === o.owner)!)?.lamports ?? 0n);
      if (paidByOthers === 0n) expect(o.tokenAccountRentPaidBy).toBeNull();
      const sol = g.sol + fee - paidByOthers;
      const expected = Object.fromEntries([
        ...(sol === 0n ? [] : [['SOL', `${sol}`]]),
        ...[...g.tokens].filter(([, v]) => v !== 0n).map(([mint, v]) => [mint, `${v}`]),
      ]);
      expect(Object.fromEntries(o.changes.map((c) => [c.asset, c.raw]))).toEqual(expected);
      expect(o.changes.length).toBe(Object.keys(expected).length);
      expect(o.tokenAccountRentLamports).toBe(Number(g.tokenAccountLamports - g.wsol));
    }
    // Owners left out are those with nothing to report: no signer (but an account that signed its own
    // creation), no token owner with a change; a plain account whose lamports moved stays in accountChanges.
    const listed = new Set(body.ownerChanges.map((o) => o.owner));
    const tokenOwners = new Set(body.accountChanges.flatMap((a) => (a.token ? [a.token.owner] : [])));
    const created = createdAccountSigners(normalizeTransaction(raw));
    for (const [owner, g] of groups) {
      if (listed.has(owner) || owner === UNKNOWN) continue; // no owner known: said apart in the summary
      expect(body.signers.includes(owner) && !created.has(owner)).toBe(false);
      if (tokenOwners.has(owner)) expect([g.sol, ...g.tokens.values()].every((v) => v === 0n)).toBe(true);
    }
  });
});
