// PRICES and X402_PRICES: the flat price stays the default for every paid capability; a price set
// apart is read exactly; a name that is no paid capability, a bad number or a bad list stops the
// start with one line naming the setting.
import { describe, expect, test } from 'bun:test';
import { checkPrices, ConfigError, helpText, loadConfig } from '../../src/config.ts';
import { lamportsApart, lamportsFor, x402UnitsFor } from '../../src/billing/prices.ts';
import { CAPABILITIES } from '../../src/capabilities/registry.ts';

const X402 = { X402_PRICE: '10000', X402_FEE_PAYER_KEYPAIR: '/k.json', GATEWAY_ADDRESS: 'vines1vzrYbzLMRdu58ou5XTby4qAqVRLmqo36NKPTg' };
const paid = CAPABILITIES.filter((c) => c.paid);

function refusal(env: Record<string, string>): string {
  try {
    checkPrices(loadConfig([], env), CAPABILITIES);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as Error).message).not.toContain('\n');
    return (e as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('prices per capability', () => {
  test('by default every paid capability costs PRICE_LAMPORTS, and X402_PRICE by x402', () => {
    const c = loadConfig([], X402);
    checkPrices(c, CAPABILITIES);
    expect(paid.map((cap) => lamportsFor(c, cap.name))).toEqual(paid.map(() => 2_200_000));
    expect(paid.map((cap) => x402UnitsFor(c, cap.name))).toEqual(paid.map(() => 10_000));
    expect(lamportsApart(c)).toEqual({});
    expect(x402UnitsFor(loadConfig([], {}), 'find-ata')).toBeUndefined();
  });

  test('a capability priced apart costs its own price; the others keep the flat one', () => {
    const c = loadConfig(['--prices', 'decode-tx=4400000, simulate=0'], { ...X402, X402_PRICES: 'decode-tx=20000', PRICE_LAMPORTS: '1000' });
    checkPrices(c, CAPABILITIES);
    expect([lamportsFor(c, 'decode-tx'), lamportsFor(c, 'simulate'), lamportsFor(c, 'find-ata')]).toEqual([4_400_000, 0, 1000]);
    expect([x402UnitsFor(c, 'decode-tx'), x402UnitsFor(c, 'simulate')]).toEqual([20_000, 10_000]);
    expect(lamportsApart(c)).toEqual({ 'decode-tx': 4_400_000, simulate: 0 });
    // Set apart at the flat price: nothing differs.
    expect(lamportsApart(loadConfig([], { PRICES: 'find-ata=2200000' }))).toEqual({});
  });

  test('a name that is no paid capability, a bad number or a bad list stops the start, naming the setting', () => {
    expect(refusal({ PRICES: 'decode_tx=1' })).toStartWith('PRICES / --prices: "decode_tx" is not a capability');
    expect(refusal({ PRICES: 'balance=1' })).toStartWith('PRICES / --prices: balance is free');
    expect(refusal({ PRICES: 'decode-tx=1.5' })).toStartWith('PRICES / --prices: decode-tx: expected a whole number');
    expect(refusal({ PRICES: 'decode-tx=-1' })).toStartWith('PRICES / --prices: decode-tx: expected a whole number');
    expect(refusal({ PRICES: 'decode-tx' })).toStartWith('PRICES / --prices: expected comma-separated capability=price pairs');
    expect(refusal({ PRICES: 'decode-tx=1,decode-tx=2' })).toStartWith('PRICES / --prices: decode-tx is priced twice');
    expect(refusal({ ...X402, X402_PRICES: 'find-ata=0' })).toStartWith('X402_PRICES / --x402-prices: find-ata: expected a whole number between 1');
    expect(refusal({ ...X402, X402_PRICES: 'blockhash=5' })).toStartWith('X402_PRICES / --x402-prices: blockhash is free');
    expect(refusal({ X402_PRICES: 'find-ata=5' })).toStartWith('X402_PRICE / --x402-price: not set, but X402_PRICES is');
  });

  test('--help lists both settings', () => {
    expect(helpText()).toContain('PRICES');
    expect(helpText()).toContain('X402_PRICES');
  });
});
