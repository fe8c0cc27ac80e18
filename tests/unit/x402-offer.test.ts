// The offer of every paid capability, for each way in, on plain data: an absolute resource URL, a
// bazaar extension that @x402/extensions' own checks accept, whose example answer is still an
// answer of the capability's success schema, and (REST) a PAYMENT-REQUIRED header small enough for
// the 8 KB that proxies (nginx's default proxy_buffer_size is 4-8 KB) and HTTP clients allow.
import { describe, expect, test } from 'bun:test';
import Ajv2020 from 'ajv/dist/2020.js';
import { encodePaymentRequiredHeader } from '@x402/core/http';
import { sanitizeResourceServiceMetadata, validateDiscoveryExtension, validateDiscoveryExtensionSpec, type DiscoveryExtension } from '@x402/extensions/bazaar';
import { paymentRequired, resourceInfo, type Terms } from '../../src/billing/x402/terms.ts';
import { defaultConfig } from '../../src/config.ts';
import { x402Resource } from '../../src/calls/x402-resource.ts';
import type { Caller } from '../../src/calls/caller.ts';
import { successSchema } from '../../src/capabilities/capability.ts';
import { CAPABILITIES } from '../../src/capabilities/registry.ts';

const TERMS: Terms = {
  price: 10_000,
  asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
  payTo: 'vines1vzrYbzLMRdu58ou5XTby4qAqVRLmqo36NKPTg',
  feePayer: 'vines1vzrYbzLMRdu58ou5XTby4qAqVRLmqo36NKPTg',
  network: 'mainnet-beta',
  maxTimeoutSeconds: 60,
};
const WAYS_IN: [string, Caller][] = [
  ['REST', { address: '203.0.113.1', face: 'rest', origin: 'http://gw.internal:3000' }],
  ['MCP Streamable HTTP', { address: '203.0.113.1', face: 'mcp', origin: 'http://gw.internal:3000', mcp: { path: '/mcp', transport: 'streamable-http' } }],
  ['MCP legacy SSE', { address: '203.0.113.1', face: 'mcp', origin: 'http://gw.internal:3000', mcp: { path: '/mcp/sse', transport: 'sse' } }],
];
const ajv = new Ajv2020({ strict: false });
const SERVICE = (({ serviceName, serviceTags, serviceIconUrl }) => ({ serviceName, serviceTags, serviceIconUrl }))(defaultConfig());

describe('x402 offers', () => {
  for (const cap of CAPABILITIES.filter((c) => c.paid)) {
    for (const [way, caller] of WAYS_IN) {
      test(`${cap.name} over ${way}`, () => {
        const resource = x402Resource(cap, caller, { ...SERVICE, publicUrl: undefined, port: 3000 });
        expect(resource.url).toBe(`http://gw.internal:3000${caller.mcp?.path ?? `/api/chain/${cap.name}`}`);
        const published = x402Resource(cap, caller, { ...SERVICE, publicUrl: 'https://gateway.example.com/solana', port: 3000 });
        expect(published.url).toStartWith('https://gateway.example.com/solana/');
        // Who offers it, as the bazaar's own sanitizer keeps it: the name, five tags, the gateway's icon.
        expect(published.service).toEqual({ serviceName: 'Chain Intelligence Gateway', tags: SERVICE.serviceTags, iconUrl: 'https://gateway.example.com/solana/icon.svg' });
        expect(sanitizeResourceServiceMetadata(resourceInfo(published))).toEqual(published.service!);
        const bazaar = resource.extensions!.bazaar as DiscoveryExtension;
        expect(validateDiscoveryExtension(bazaar)).toEqual({ valid: true });
        expect(validateDiscoveryExtensionSpec(bazaar as unknown as Record<string, unknown>)).toEqual({ valid: true });
        const validate = ajv.compile(JSON.parse(JSON.stringify(successSchema(cap))));
        expect([validate(bazaar.info.output!.example), validate.errors]).toEqual([true, null]);
        // Only REST carries the offer in a header; MCP carries it in the result's text.
        if (caller.face === 'rest') expect(encodePaymentRequiredHeader(paymentRequired(TERMS, resource, 'X-PAYMENT or PAYMENT-SIGNATURE header is required')).length).toBeLessThan(8 * 1024);
      });
    }
  }
});
