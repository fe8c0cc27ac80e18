// A request and its answer for each capability, for the OpenAPI document and the discovery
// extension of x402 offers: real answers of this gateway, recorded by
// tests/support/record-examples.ts against recorded mainnet RPC replies (tests/fixtures/mainnet),
// never written by hand. tests/integration/openapi.test.ts checks each against its schema.
import recorded from './recorded-examples.json';

export interface RecordedExample {
  /** The request that produced it: query parameters, or the JSON body of a POST. */
  readonly request: Record<string, unknown>;
  readonly response: Record<string, unknown>;
}

export const EXAMPLES: Readonly<Record<string, RecordedExample>> = recorded;
