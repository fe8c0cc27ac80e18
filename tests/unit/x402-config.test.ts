// x402's settings: all or nothing, each half configuration a one-line error naming the setting,
// and a key file that cannot serve refused without its contents ever being repeated.
import { describe, expect, test } from 'bun:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, helpText, loadConfig, USDC_MINT } from '../../src/config.ts';
import { loadFeePayer } from '../../src/billing/x402/facilitator.ts';
import { keypairFile } from '../support/x402.ts';

const ADDR = 'vines1vzrYbzLMRdu58ou5XTby4qAqVRLmqo36NKPTg';
const dir = mkdtempSync(join(tmpdir(), 'cig-x402-config-'));

function refusal(env: Record<string, string>): string {
  try {
    loadConfig([], env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    const message = (e as Error).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error('expected a ConfigError');
}

describe('x402 settings', () => {
  test('off by default; X402_PRICE with a keypair turns it on, paying in USDC to GATEWAY_ADDRESS', () => {
    expect(loadConfig([], {}).x402Price).toBeUndefined();
    const c = loadConfig([], { X402_PRICE: '10000', X402_FEE_PAYER_KEYPAIR: '/k.json', GATEWAY_ADDRESS: ADDR });
    expect(c).toMatchObject({ x402Price: 10000, x402Asset: USDC_MINT, x402PayTo: undefined, gatewayAddress: ADDR });
    expect(loadConfig(['--x402-price', '5', '--x402-facilitator-url', 'https://f.example/x', '--x402-pay-to', ADDR], {}).x402FacilitatorUrl).toBe('https://f.example/x');
  });

  test('every half configuration names the setting at fault', () => {
    expect(refusal({ X402_PRICE: '10000', GATEWAY_ADDRESS: ADDR })).toStartWith('X402_FEE_PAYER_KEYPAIR / --x402-fee-payer-keypair:');
    expect(refusal({ X402_PRICE: '10000', X402_FEE_PAYER_KEYPAIR: '/k.json' })).toStartWith('X402_PAY_TO / --x402-pay-to:');
    expect(refusal({ X402_PRICE: '10000', GATEWAY_ADDRESS: ADDR, X402_FEE_PAYER_KEYPAIR: '/k.json', X402_FACILITATOR_URL: 'https://f.example' })).toStartWith('X402_FACILITATOR_URL / --x402-facilitator-url:');
    expect(refusal({ X402_FEE_PAYER_KEYPAIR: '/k.json' })).toStartWith('X402_PRICE / --x402-price:');
    expect(refusal({ X402_PAY_TO: ADDR })).toStartWith('X402_PRICE / --x402-price:');
    expect(refusal({ X402_PRICE: '0', GATEWAY_ADDRESS: ADDR, X402_FEE_PAYER_KEYPAIR: '/k.json' })).toStartWith('X402_PRICE / --x402-price:');
    expect(refusal({ X402_PRICE: '1.5' })).toStartWith('X402_PRICE / --x402-price:');
    expect(refusal({ X402_PRICE: '1', X402_ASSET: 'not-a-mint', GATEWAY_ADDRESS: ADDR, X402_FEE_PAYER_KEYPAIR: '/k.json' })).toStartWith('X402_ASSET / --x402-asset:');
    expect(refusal({ X402_PRICE: '1', X402_FACILITATOR_URL: 'ftp://f.example', GATEWAY_ADDRESS: ADDR })).toStartWith('X402_FACILITATOR_URL / --x402-facilitator-url:');
  });

  test('--help lists every x402 setting', () => {
    for (const env of ['X402_PRICE', 'X402_ASSET', 'X402_PAY_TO', 'X402_FEE_PAYER_KEYPAIR', 'X402_FACILITATOR_URL', 'X402_SETTLE_SECONDS', 'X402_MAX_COMPUTE_UNIT_PRICE']) expect(helpText()).toContain(env);
  });
});

describe('the fee-payer key file', () => {
  test('a Solana CLI keypair file gives its signer', async () => {
    const key = await keypairFile(dir, 'good.json');
    expect((await loadFeePayer(key.path)).address).toBe(key.signer.address);
  });

  test('a file that is no keypair is refused, and no error repeats a byte of it', async () => {
    const key = await keypairFile(dir, 'real.json');
    const secret = JSON.stringify([...key.bytes]);
    const cases: [string, string][] = [
      ['short.json', JSON.stringify([...key.bytes.slice(0, 63)])],
      ['text.json', `not json ${secret.slice(1, 40)}`],
      ['range.json', JSON.stringify([...key.bytes.slice(0, 63), 256])],
      // The public half of another key: a file edited by hand.
      ['mismatch.json', JSON.stringify([...key.bytes.slice(0, 32), ...key.bytes.slice(32).map((b) => b ^ 1)])],
    ];
    for (const [name, text] of cases) {
      const path = join(dir, name);
      writeFileSync(path, text);
      const e = await loadFeePayer(path).then(
        () => null,
        (err: Error) => err,
      );
      expect(e).toBeInstanceOf(ConfigError);
      expect(e!.message).toStartWith('X402_FEE_PAYER_KEYPAIR / --x402-fee-payer-keypair:');
      for (const n of key.bytes.slice(0, 8)) expect(e!.message).not.toContain(`${n},`);
      expect(e!.message).not.toContain(secret.slice(1, 20));
    }
    const missing = await loadFeePayer(join(dir, 'absent.json')).catch((err: Error) => err);
    expect((missing as Error).message).toBe('X402_FEE_PAYER_KEYPAIR / --x402-fee-payer-keypair: cannot read the file (ENOENT)');
  });
});
