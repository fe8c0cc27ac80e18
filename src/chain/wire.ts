// Checks that a base64 string is a Solana wire transaction that actually deserializes, before it
// is sent anywhere (pure).
import { getCompiledTransactionMessageDecoder, getTransactionDecoder } from '@solana/kit';

/** Largest serialized transaction a node accepts (the IPv6 MTU minus headers). */
export const MAX_TRANSACTION_BYTES = 1232;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export class WireError extends Error {}

export interface WireSummary {
  bytes: number;
  version: 'legacy' | number;
  signatures: number;
  accounts: number;
  instructions: number;
  addressTableLookups: number;
}

export function inspectWireTransaction(base64: string): WireSummary {
  if (!BASE64.test(base64)) throw new WireError('transaction must be standard base64 (A-Z, a-z, 0-9, +, / with = padding)');
  const bytes = new Uint8Array(Buffer.from(base64, 'base64'));
  if (bytes.length === 0) throw new WireError('transaction is empty');
  if (bytes.length > MAX_TRANSACTION_BYTES) throw new WireError(`transaction is ${bytes.length} bytes; the limit is ${MAX_TRANSACTION_BYTES}`);
  try {
    const [tx, end] = getTransactionDecoder().read(bytes, 0);
    if (end !== bytes.length) throw new WireError(`transaction has ${bytes.length - end} trailing bytes`);
    const [message, messageEnd] = getCompiledTransactionMessageDecoder().read(tx.messageBytes, 0);
    if (messageEnd !== tx.messageBytes.length) throw new WireError('transaction message has trailing bytes');
    if (message.version !== 'legacy' && message.version !== 0) throw new WireError(`transaction version ${message.version} is not supported (legacy or v0)`);
    return {
      bytes: bytes.length,
      version: message.version,
      signatures: Object.keys(tx.signatures).length,
      accounts: message.staticAccounts.length,
      instructions: message.instructions.length,
      addressTableLookups: 'addressTableLookups' in message ? (message.addressTableLookups?.length ?? 0) : 0,
    };
  } catch (e) {
    if (e instanceof WireError) throw e;
    throw new WireError('transaction does not deserialize as a legacy or v0 Solana transaction');
  }
}
