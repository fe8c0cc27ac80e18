// A test file's sandbox chain and the gateways it starts on it: the chain starts before the file's
// tests, and everything is stopped after them. Call it at the top of the file, before any hook
// that uses the chain (hooks run in the order they are registered).
import { afterAll, beforeAll } from 'bun:test';
import type { Config } from '../../src/config.ts';
import { startSandbox, type Sandbox } from './sandbox/index.ts';
import { startGateway, type TestGateway } from './gateway.ts';

type Settings = Partial<Config>;

/**
 * `defaults` are the settings of every gateway started with `gateway()` (a function, for values
 * made per gateway such as a fresh deposit address); each gateway reads the chain as both networks.
 */
export function sandboxGateways(defaults: () => Settings | Promise<Settings> = () => ({})) {
  let chain: Sandbox | undefined;
  const gateways: TestGateway[] = [];
  beforeAll(async () => {
    chain = await startSandbox();
  });
  afterAll(async () => {
    for (const gw of gateways) await gw.stop();
    await chain?.stop();
  });
  return {
    /** Every gateway started so far. */
    gateways: gateways as readonly TestGateway[],
    get chain(): Sandbox {
      if (!chain) throw new Error('the sandbox chain starts in beforeAll: use it inside a hook or a test');
      return chain;
    },
    async gateway(overrides: Settings = {}): Promise<TestGateway> {
      const url = this.chain.url;
      const gw = await startGateway({ mainnetRpcUrls: [url], devnetRpcUrls: [url], ...(await defaults()), ...overrides });
      gateways.push(gw);
      return gw;
    },
  };
}
