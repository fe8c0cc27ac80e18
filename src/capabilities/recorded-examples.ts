// Examples of each capability (the OpenAPI document's, the x402 offers' discovery): real answers of this gateway, recorded by
// tests/support/record-examples.ts against recorded mainnet RPC replies (tests/fixtures/mainnet),
// never written by hand. tests/integration/openapi.test.ts checks each against its schema.
import recorded from './recorded-examples.json';

export interface RecordedExample {
  /** The request that produced it: query parameters, or the JSON body of a POST. */
  readonly request: Record<string, unknown>;
  readonly response: Record<string, unknown>;
}

export const EXAMPLES: Readonly<Record<string, RecordedExample>> = recorded;
