// Input fields shared by the capabilities. Each field is defined once: its JSON Schema (for
// OpenAPI and MCP tool listings), an example (for hints), and a parser that turns a raw query,
// body or MCP argument into a typed value or a 400 with a hint.
import { LRUCache } from 'lru-cache';
import { isBase58Of } from '../chain/base58.ts';
import { Type, type TSchema } from '@sinclair/typebox';
import { t } from 'elysia';
import { inspectWireTransaction, MAX_TRANSACTION_BYTES, WireError } from '../chain/wire.ts';
import { NETWORKS, type Network } from '../config.ts';

/** A field's value could not be used; the caller turns this into 400 with an example call. */
export class InvalidField extends Error {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(reason);
  }
}

export interface Param<T> {
  readonly schema: TSchema;
  readonly required: boolean;
  readonly example?: string;
  /** `raw` is undefined when the field is absent. */
  parse(raw: unknown, field: string): T;
}

const text = (raw: unknown): string | undefined => {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === 'string') return raw.trim() === '' ? undefined : raw.trim();
  if (typeof raw === 'number' || typeof raw === 'bigint') return String(raw);
  return undefined;
};

// Addresses already found valid: an agent asks about the same wallet and mint again and again, and
// a base58 decode was about a twentieth of a cached paid call (BENCH_PROFILE of find-ata). Only
// valid addresses are kept, at most this many.
const validAddresses = new LRUCache<string, true>({ max: 10_000 });

function isAddress(text: string): boolean {
  if (validAddresses.get(text)) return true;
  if (!isBase58Of(text, 32)) return false;
  validAddresses.set(text, true);
  return true;
}

export function address(description: string, example: string): Param<string> {
  return {
    schema: t.String({ description, examples: [example], minLength: 32, maxLength: 44 }),
    required: true,
    example,
    parse(raw, field) {
      const v = text(raw);
      if (v === undefined || !isAddress(v)) throw new InvalidField(field, `${field} must be a base58 Solana address (32 bytes)`);
      return v;
    },
  };
}

/** An address that may be left out (then undefined); when given, checked like every address. */
export function optionalAddress(description: string, example: string): Param<string | undefined> {
  const checked = address(description, example);
  return {
    schema: t.Optional(checked.schema),
    required: false,
    example,
    parse: (raw, field) => (text(raw) === undefined ? undefined : checked.parse(raw, field)),
  };
}

/** true or false (query strings: "true"/"false", "1"/"0"); absent gives `fallback`. */
export function flag(description: string, fallback: boolean): Param<boolean> {
  return {
    schema: t.Optional(Type.Boolean({ description, default: fallback })),
    required: false,
    parse(raw, field) {
      if (typeof raw === 'boolean') return raw;
      const v = text(raw);
      if (v === undefined) return fallback;
      if (v === 'true' || v === '1') return true;
      if (v === 'false' || v === '0') return false;
      throw new InvalidField(field, `${field} must be true or false`);
    },
  };
}

export function signature(description: string, example: string, required = true): Param<string> {
  const schema = t.String({ description, examples: [example], minLength: 64, maxLength: 88 });
  return {
    schema: required ? schema : t.Optional(schema),
    required,
    example,
    parse(raw, field) {
      const v = text(raw);
      if (v === undefined && !required) return undefined as unknown as string;
      if (v === undefined || !isBase58Of(v, 64)) throw new InvalidField(field, `${field} must be a base58 transaction signature (64 bytes)`);
      return v;
    },
  };
}

export function optionalSignature(description: string, example: string): Param<string | undefined> {
  return signature(description, example, false) as Param<string | undefined>;
}

export function network(): Param<Network> {
  return {
    schema: t.Optional(
      t.Union(
        NETWORKS.map((n) => t.Literal(n)),
        { description: 'Solana cluster', default: 'mainnet-beta' },
      ),
    ),
    required: false,
    parse(raw, field) {
      const v = text(raw);
      if (v === undefined) return 'mainnet-beta';
      if (!(NETWORKS as readonly string[]).includes(v)) throw new InvalidField(field, `${field} must be mainnet-beta or devnet`);
      return v as Network;
    },
  };
}

export function integer(description: string, opts: { min: number; max: number; default: number }): Param<number>;
export function integer(description: string, opts: { min: number; max: number }): Param<number | undefined>;
export function integer(description: string, opts: { min: number; max: number; default?: number }): Param<number | undefined> {
  return {
    // TypeBox's Integer: Elysia's t.Integer also admits numeric strings, which is the parser's
    // leniency (query strings are text), not the contract to advertise.
    schema: t.Optional(Type.Integer({ description, minimum: opts.min, maximum: opts.max, ...(opts.default === undefined ? {} : { default: opts.default }) })),
    required: false,
    example: String(opts.default ?? opts.min),
    parse(raw, field) {
      const v = text(raw);
      if (v === undefined) return opts.default;
      const n = /^\d+$/.test(v) ? Number(v) : NaN;
      if (!Number.isInteger(n) || n < opts.min || n > opts.max) {
        throw new InvalidField(field, `${field} must be a whole number from ${opts.min} to ${opts.max}`);
      }
      return n;
    },
  };
}

/** Comma-separated addresses in a query string, or an array of them in JSON / MCP arguments. */
export function addressList(description: string, max: number): Param<string[] | undefined> {
  return {
    schema: t.Optional(t.Union([t.String({ description: `${description} (comma-separated)` }), t.Array(t.String(), { maxItems: max })], { description })),
    required: false,
    parse(raw, field) {
      if (raw === undefined || raw === null || raw === '') return undefined;
      const items = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : null;
      if (!items) throw new InvalidField(field, `${field} must be comma-separated base58 addresses`);
      const list = [...new Set(items.map((a) => (typeof a === 'string' ? a.trim() : '')).filter(Boolean))];
      if (list.length > max) throw new InvalidField(field, `${field} takes at most ${max} addresses`);
      for (const a of list) if (!isAddress(a)) throw new InvalidField(field, `${field} must hold base58 Solana addresses (32 bytes each)`);
      return list.length ? list : undefined;
    },
  };
}

export function base64Transaction(description: string, example: string): Param<string> {
  return {
    schema: t.String({ description, examples: [example], maxLength: Math.ceil(MAX_TRANSACTION_BYTES / 3) * 4 }),
    required: true,
    example,
    parse(raw, field) {
      if (typeof raw !== 'string' || raw.trim() === '') throw new InvalidField(field, `${field} must be a base64 string`);
      try {
        inspectWireTransaction(raw.trim());
      } catch (e) {
        // The wire's messages name the transaction already ("transaction must be standard base64 ...").
        if (e instanceof WireError) throw new InvalidField(field, e.message);
        throw e;
      }
      return raw.trim();
    },
  };
}

export type ParamMap = Record<string, Param<unknown>>;
export type Input<P extends ParamMap> = { [K in keyof P]: P[K] extends Param<infer T> ? T : never };
