// What tests read from a decode-tx body.
import type { DecodeTxBody, OwnerChangesView } from '../../src/chain/tx/describe.ts';

/** The fee payer's entry of the per-owner view (every answer has one: the fee payer signs). */
export function payerChanges(body: Pick<DecodeTxBody, 'ownerChanges'>): OwnerChangesView {
  const payer = body.ownerChanges.find((o) => o.feePayer);
  if (!payer) throw new Error('no fee payer among ownerChanges');
  return payer;
}
