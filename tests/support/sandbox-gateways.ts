// A test file's sandbox chain and the gateways it starts on it: the chain starts before the file's
// tests (with a token mint, if asked), and everything is stopped after them. Call it at the top of
// the file, before any hook that uses the chain (hooks run in the order they are registered).
import { afterAll, beforeAll } from 'bun:test';
import type { Address } from '@solana/kit';
import type { Config } from '../../src/config.ts';
import { startSandbox, type Sandbox } from './sandbox/index.ts';
import { startGateway, type TestGateway } from './gateway.ts';

type Settings = Partial<Config>;

export interface SandboxSetup {
  /** The settings of every gateway started with `gateway()` (a function, for values made per gateway such as a fresh deposit address). */
  defaults?: () => Settings | Promise<Settings>;
  /** Create a classic SPL token mint (6 decimals, the sandbox payer its authority) once the chain runs: `mint`. */
  mint?: boolean;
}

/** `setup`, or just its `defaults`. Each gateway reads the chain as both networks. */
export function sandboxGateways(setup: SandboxSetup | NonNullable<SandboxSetup['defaults']> = {}) {
  const { defaults = () => ({}), mint: withMint = false } = typeof setup === 'function' ? { defaults: setup } : setup;
  let chain: Sandbox | undefined;
  let mint: Address | undefined;
  const gateways: TestGateway[] = [];
  beforeAll(async () => {
    chain = await startSandbox();
    if (withMint) mint = await chain.createMint({ authority: chain.payer, decimals: 6 });
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
    get mint(): Address {
      if (!mint) throw new Error(withMint ? 'the mint is made in beforeAll: use it inside a hook or a test' : 'pass { mint: true } to sandboxGateways for a mint');
      return mint;
    },
    /** Settings that point a gateway (or a gateway process) at the chain on both networks. */
    get rpcUrls(): Pick<Config, 'mainnetRpcUrls' | 'devnetRpcUrls'> {
      const url = this.chain.url;
      return { mainnetRpcUrls: [url], devnetRpcUrls: [url] };
    },
    /** A gateway on the chain, stopped with the chain after the file's tests. */
    async gateway(overrides: Settings = {}): Promise<TestGateway> {
      const gw = await startGateway({ ...this.rpcUrls, ...(await defaults()), ...overrides });
      gateways.push(gw);
      return gw;
    },
  };
}
