import { describe, expect, test } from 'bun:test';
import { ConfigError, defaultConfig, helpText, loadConfig, secretsOf } from '../../src/config.ts';
import { commandsHelp } from '../../src/cli/commands.ts';

/**
 * The settings of a --help text as laid out: each flag line, the column its variable starts at,
 * the columns its text lines start at, and the text joined back.
 */
function helpEntries(help: string) {
  const lines = help.split('\n');
  const entries: { env: string; envAt: number; textAt: number[]; text: string }[] = [];
  lines.forEach((line, i) => {
    const m = /^ {2}(--\S+) +([A-Z0-9_]+)( +|$)/.exec(line);
    if (!m) return;
    const rest = lines.slice(i + 1);
    const more = rest.slice(0, Math.max(0, rest.findIndex((l) => !/^ {6}/.test(l)))).filter((l) => l.trim());
    const first = line.slice(m[0].length);
    const parts = [...(first ? [{ at: m[0].length, text: first }] : []), ...more.map((l) => ({ at: l.length - l.trimStart().length, text: l.trim() }))];
    entries.push({ env: m[2]!, envAt: line.indexOf(m[2]!, 2 + m[1]!.length), textAt: parts.map((p) => p.at), text: parts.map((p) => p.text).join(' ') });
  });
  return entries;
}

describe('config', () => {
  test('starts with zero configuration', () => {
    const c = loadConfig([], {});
    expect(c).toEqual(defaultConfig());
    expect(c.port).toBe(3000);
    expect(c.host).toBe('0.0.0.0');
    expect(c.databasePath).toBe('./data/gateway.sqlite');
    expect(c.priceLamports).toBe(2_200_000);
    expect(c.freeCalls).toBe(10);
    expect(c.minDepositLamports).toBe(2_200_000);
    expect(c.gatewayAddress).toBeUndefined();
    expect(c.verifyDeposits).toBe(true);
    expect(c.depositPollSeconds).toBe(15);
    expect(c.mcpMaxSessions).toBe(1000);
    expect(c.mainnetRpcUrls).toEqual(['https://api.mainnet-beta.solana.com']);
  });

  test('reads environment variables and flags; a flag wins', () => {
    const c = loadConfig(['--port', '4001', '--free-calls=3'], { PORT: '5000', MAINNET_RPC_URLS: 'http://a:1, http://b:2', VERIFY_DEPOSITS: 'false', PAYMENT_NETWORK: 'devnet' });
    expect(c.port).toBe(4001);
    expect(c.freeCalls).toBe(3);
    expect(c.mainnetRpcUrls).toEqual(['http://a:1', 'http://b:2']);
    expect(c.verifyDeposits).toBe(false);
    expect(c.paymentNetwork).toBe('devnet');
  });

  test.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ PAYMENT_NETWORK: 'testnet' }, 'PAYMENT_NETWORK'],
    [{ GATEWAY_ADDRESS: 'not-an-address' }, 'GATEWAY_ADDRESS'],
    [{ VERIFY_DEPOSITS: 'maybe' }, 'VERIFY_DEPOSITS'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ MAINNET_RPC_URLS: 'ftp://x' }, 'MAINNET_RPC_URLS'],
  ] as [Record<string, string>, string][])('a bad value is refused with a clear message: %p', (env, name) => {
    expect(() => loadConfig([], env)).toThrow(ConfigError);
    expect(() => loadConfig([], env)).toThrow(name);
  });

  test('a bad RPC URL is refused without repeating it (it may hold a key)', () => {
    try {
      loadConfig([], { DEVNET_RPC_URLS: 'not a url?api-key=SECRET' });
      throw new Error('accepted');
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as Error).message).not.toContain('SECRET');
    }
  });

  test('hosts: addresses and names pass, mistyped addresses do not', () => {
    for (const h of ['0.0.0.0', '127.0.0.1', '::', '::1', '[::1]', 'localhost', 'gateway.internal']) expect(() => loadConfig(['--host', h], {})).not.toThrow();
    for (const h of ['999.1.1.1', '10.0.0', 'a b', 'host_name', '::zz::']) expect(() => loadConfig(['--host', h], {})).toThrow('HOST');
  });

  test('unknown flags are refused', () => {
    expect(() => loadConfig(['--prot', '1'], {})).toThrow('unknown option --prot');
  });

  test('--help lists every setting with its environment variable and default', () => {
    const text = helpText();
    for (const name of ['PORT', 'HOST', 'DATABASE_PATH', 'MAINNET_RPC_URLS', 'DEVNET_RPC_URLS', 'GATEWAY_ADDRESS', 'PAYMENT_NETWORK', 'WEBHOOK_SECRET', 'VERIFY_DEPOSITS', 'DEPOSIT_POLL_SECONDS', 'PRICE_LAMPORTS', 'FREE_CALLS', 'MIN_DEPOSIT_LAMPORTS', 'RATE_LIMIT_RPS', 'RATE_LIMIT_BURST', 'MCP_MAX_SESSIONS', 'LOG_LEVEL']) {
      expect(text).toContain(name);
    }
    expect(text).toContain('[default: 3000]');
    expect(text).toContain('[default: 2200000]');
  });

  test('--help says smaller transfers add up to MIN_DEPOSIT_LAMPORTS, as the watcher does', () => {
    const entry = helpEntries(helpText(200)).find((e) => e.env === 'MIN_DEPOSIT_LAMPORTS')!;
    expect(entry.text).toContain('adds up smaller ones per sender');
    expect(entry.text).not.toContain('ignored');
  });

  test('--help: aligned columns, every line within the width, at any width', () => {
    for (const width of [20, 40, 60, 80, 100, 120, 160, 240]) {
      const text = helpText(width) + '\n' + commandsHelp(width);
      const long = text.split('\n').filter((l) => l.length > width);
      expect(long).toEqual([]);
      if (width < 80) continue; // narrower, a flag and its variable may not fit on one line
      const entries = helpEntries(helpText(width));
      expect(entries.length).toBeGreaterThan(30);
      // Each column starts where it starts on every row: the variable, then the text (beside or under).
      expect(new Set(entries.map((e) => e.envAt)).size).toBe(1);
      expect(new Set(entries.flatMap((e) => e.textAt)).size).toBe(1);
      // Nothing lost to the wrapping: each entry's text is its setting's help and default.
      expect(entries.find((e) => e.env === 'PORT')!.text).toBe('TCP port to listen on (0 picks a free one) [default: 3000]');
    }
    // Wide enough, the text stands beside the names; at 80 columns, under them.
    expect(helpText(240).split('\n').find((l) => l.startsWith('  --port'))).toContain('TCP port');
    expect(helpText(80).split('\n').find((l) => l.startsWith('  --port'))).not.toContain('TCP port');
  });

  test('secrets are the RPC URLs and the webhook secret', () => {
    const c = loadConfig([], { MAINNET_RPC_URLS: 'https://rpc.example/?api-key=K1234567', WEBHOOK_SECRET: 'whsec-abcdef' });
    expect(secretsOf(c)).toContain('https://rpc.example/?api-key=K1234567');
    expect(secretsOf(c)).toContain('whsec-abcdef');
  });
});

describe('TRUSTED_PROXIES', () => {
  test('takes IPs and CIDR ranges, and refuses anything else with the setting named', () => {
    expect(loadConfig([], { TRUSTED_PROXIES: '10.0.0.0/8, ::1,192.168.1.1, fd00::/8' }).trustedProxies).toEqual(['10.0.0.0/8', '::1', '192.168.1.1', 'fd00::/8']);
    expect(loadConfig([], {}).trustedProxies).toEqual([]);
    for (const bad of ['10.0.0.0/33', 'localhost', '10.0.0.0/8/1', '::1/129', '10.0.0.0/x']) {
      expect(() => loadConfig([], { TRUSTED_PROXIES: bad })).toThrow(/TRUSTED_PROXIES/);
    }
  });
});

describe('PUBLIC_URL', () => {
  test('takes an http(s) origin with an optional path prefix, kept without a trailing slash; refuses anything else with the setting named', () => {
    expect(loadConfig([], {}).publicUrl).toBeUndefined();
    expect(loadConfig([], { PUBLIC_URL: 'https://Gateway.Example.com/' }).publicUrl).toBe('https://gateway.example.com');
    expect(loadConfig(['--public-url', 'http://gw.example:8080/solana//'], {}).publicUrl).toBe('http://gw.example:8080/solana');
    for (const bad of ['gateway.example.com', 'ftp://gw.example', 'https://user:pw@gw.example', 'https://gw.example/?a=1', 'https://gw.example/#x']) {
      expect(() => loadConfig([], { PUBLIC_URL: bad })).toThrow(/PUBLIC_URL/);
    }
  });
});
