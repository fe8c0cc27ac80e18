// MAINNET_WS_URLS / DEVNET_WS_URLS (issue 40): by default one per RPC URL, derived as web3.js and
// @solana/kit clients do; set explicitly they must be ws(s) URLs, and like RPC URLs they are secrets.
import { expect, test } from 'bun:test';
import { ConfigError, derivedWsUrl, loadConfig, secretsOf, wsUrls } from '../../src/config.ts';

test('http becomes ws, https wss, an explicit port the next one; path and query (an API key) are kept', () => {
  expect(derivedWsUrl('http://127.0.0.1:8899')).toBe('ws://127.0.0.1:8900/');
  expect(derivedWsUrl('https://api.mainnet-beta.solana.com')).toBe('wss://api.mainnet-beta.solana.com/');
  expect(derivedWsUrl('https://rpc.example.com:8443/v1?api-key=abc')).toBe('wss://rpc.example.com:8444/v1?api-key=abc');
  // a default port written out is no explicit port to URL: https://host:443 stays on 443
  expect(derivedWsUrl('https://rpc.example.com:443')).toBe('wss://rpc.example.com/');
});

test('each network derives from its own RPC URLs unless its WS setting is given', () => {
  const c = loadConfig([], { MAINNET_RPC_URLS: 'http://a:8899,https://b', DEVNET_WS_URLS: 'wss://dev.example.com/ws?key=k1' });
  expect(wsUrls(c, 'mainnet-beta')).toEqual(['ws://a:8900/', 'wss://b/']);
  expect(wsUrls(c, 'devnet')).toEqual(['wss://dev.example.com/ws?key=k1']);
  expect(secretsOf(c)).toContain('wss://dev.example.com/ws?key=k1');
});

test('a WS setting that is not ws(s) stops the start without repeating the URL', () => {
  expect(() => loadConfig([], { MAINNET_WS_URLS: 'https://rpc.example.com' })).toThrow(ConfigError);
  expect(() => loadConfig([], { MAINNET_WS_URLS: 'https://rpc.example.com' })).toThrow('expected ws(s) URLs');
  expect(() => loadConfig([], { MAINNET_WS_URLS: 'nope?api-key=SECRET' })).toThrow(/^(?!.*SECRET)/);
  expect(() => loadConfig([], { WATCH_SUBSCRIPTIONS_PER_SOCKET: '0' })).toThrow(ConfigError);
});
