// Building blocks of the output schemas. Each says what the JSON carries, and its TypeScript type
// is what the capability may put there before serialization (src/json.ts writes bigints and raw
// JSON numbers exactly), so a capability's return type follows from its schema.
// TypeBox's own Type, not Elysia's `t`: Elysia's t.Integer also accepts numeric strings (for query
// strings), which is wrong for what the gateway answers.
import { Type as t, type TSchema } from '@sinclair/typebox';

/** What JSON.rawJSON returns: a number written into the JSON text exactly as given. */
export interface RawJsonNumber {
  readonly rawJSON: string;
}

/** A u64 from the chain (lamports, slots): a JSON integer, possibly beyond 2^53 (then a bigint in JS). */
export const u64 = (description: string) => t.Unsafe<number | bigint>({ type: 'integer', minimum: 0, description });

/** A signed count of lamports (a change): a JSON integer, exact beyond 2^53 (then a bigint in JS). */
export const lamportsChange = (description: string) => t.Unsafe<number | bigint>({ type: 'integer', description });

/** An exact decimal written as a JSON number (e.g. SOL from lamports), never rounded through floating point. */
export const exactDecimal = (description: string) => t.Unsafe<number | RawJsonNumber>({ type: 'number', description });

/** A raw token amount: a base-10 integer string, exact at any size. */
export const rawAmount = (description: string, signed = false) => t.String({ description, pattern: signed ? '^-?[0-9]+$' : '^[0-9]+$' });

/** An amount divided by its decimals, written exactly as a decimal string ("1.5", "0.000000001"). */
export const uiAmount = (description: string, signed = false) => t.String({ description, pattern: signed ? '^-?[0-9]+(\\.[0-9]+)?$' : '^[0-9]+(\\.[0-9]+)?$' });

export const base58Address = (description: string) => t.String({ description, minLength: 32, maxLength: 44, pattern: '^[1-9A-HJ-NP-Za-km-z]+$' });

export const base58Signature = (description: string) => t.String({ description, minLength: 64, maxLength: 88, pattern: '^[1-9A-HJ-NP-Za-km-z]+$' });

export const nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()]);

// A schema with no type accepts anything: MCP clients warn about it and client generators make it
// `any`. Even a value passed on as the node sent it states the types it can have, as anyOf
// branches of one type each (a `type` array is legal JSON Schema, but single-type dialects such as
// Gemini's function declarations reject it: the MCP Inspector warns about both).

// Plain JSON Schema, typed `unknown` as the data passed on is: an object's fields are not described.
const oneOfTypes = (types: string[], description?: string) => t.Unsafe<unknown>({ anyOf: types.map((type) => ({ type })), ...(description ? { description } : {}) });

/** A transaction error as the node sent it: null on success, a name (`"AccountInUse"`) or an object (`{"InstructionError": [0, {"Custom": 1}]}`). */
export const nodeError = (description: string) => oneOfTypes(['string', 'object', 'null'], description);

/** A JSON value of any type, each type named (e.g. an extension's decoded field). */
export const jsonValue = () => oneOfTypes(['string', 'number', 'boolean', 'object', 'array', 'null']);
