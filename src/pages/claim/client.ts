/// <reference lib="dom" />
// The claim page's script (bundled into claim.bundle.js by `bun run build:pages`): connect any
// Wallet Standard wallet, check for a deposit, sign the challenge, claim, show the key once.
// The key lives only in this page's memory and DOM: never in a URL, storage, cookie or console.
import { base58 } from '@scure/base';
import { getWallets } from '@wallet-standard/app';
import type { Wallet, WalletAccount } from '@wallet-standard/base';

interface PageConfig {
  gatewayAddress: string | null;
  network: string;
  minDepositLamports: number;
  priceLamports: number;
  /** The capabilities priced apart (PRICES): those whose price differs are shown. */
  pricesLamports: Record<string, number>;
  freeCalls: number;
}

interface Challenge {
  challenge: string;
  wallet: string;
  expiresAt: number;
}

type SignMessageFeature = {
  signMessage(input: { account: WalletAccount; message: Uint8Array }): Promise<readonly { signature: Uint8Array }[]>;
};
type ConnectFeature = { connect(input?: { silent?: boolean }): Promise<{ accounts: readonly WalletAccount[] }> };

const SIGN = 'solana:signMessage';
const CONNECT = 'standard:connect';
const POLL_MS = 5000;

const el = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const config = JSON.parse(el('claim-config').textContent!) as PageConfig;
const sol = (lamports: number) => `${(lamports / 1e9).toString()} SOL`;

type Tone = 'info' | 'ok' | 'error';
function say(id: string, text: string, tone: Tone = 'info') {
  const box = el(id);
  box.textContent = text;
  box.className = `msg ${tone}`;
  box.hidden = text === '';
}

async function api(path: string, init?: RequestInit): Promise<{ status: number; body: any }> {
  const res = await fetch(path, { ...init, cache: 'no-store', credentials: 'omit' });
  let body: any = {};
  try {
    body = await res.json();
  } catch {}
  return { status: res.status, body };
}

const describeError = (body: any) => [body?.error, body?.hint].filter(Boolean).join(': ') || 'unexpected answer';

/** True or false when the browser can check an Ed25519 signature itself; undefined when it cannot. */
async function signedBy(signature: Uint8Array, text: string, wallet: string): Promise<boolean | undefined> {
  try {
    const key = await crypto.subtle.importKey('raw', base58.decode(wallet) as Uint8Array<ArrayBuffer>, { name: 'Ed25519' }, false, ['verify']);
    return await crypto.subtle.verify('Ed25519', key, signature as Uint8Array<ArrayBuffer>, new TextEncoder().encode(text));
  } catch {
    return undefined;
  }
}

// ---- gateway facts -----------------------------------------------------------------------------
el('gateway-address').textContent = config.gatewayAddress ?? 'not configured';
// Nothing to copy beside "not configured": the button shows only with an address.
el('copy-address').hidden = !config.gatewayAddress;
el('network').textContent = config.network;
el('min-deposit').textContent = `${sol(config.minDepositLamports)} (${config.minDepositLamports.toLocaleString('en-US')} lamports)`;
const apart = Object.entries(config.pricesLamports)
  .filter(([, price]) => price !== config.priceLamports)
  .map(([name, price]) => `${name}: ${sol(price)}`);
el('price').textContent = `${sol(config.priceLamports)} per paid call${apart.length ? ` (${apart.join(', ')})` : ''}${config.freeCalls > 0 ? `, after ${config.freeCalls} free call${config.freeCalls === 1 ? '' : 's'}` : ''}`;
if (!config.gatewayAddress) {
  say('gateway-msg', 'This gateway does not sell keys: its operator has not configured a deposit address. Free calls still work.', 'error');
}

// ---- wallets -----------------------------------------------------------------------------------
let wallet: { address: string; standard?: Wallet; account?: WalletAccount } | undefined;
let pollTimer: ReturnType<typeof setTimeout> | undefined;
let claimed = false;

const usable = (w: Wallet) => CONNECT in w.features && SIGN in w.features;

function renderWallets() {
  const list = el('wallets');
  list.replaceChildren();
  const found = getWallets().get().filter(usable);
  for (const w of found) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'wallet';
    const icon = document.createElement('img');
    icon.src = w.icon;
    icon.alt = '';
    button.append(icon, document.createTextNode(w.name));
    button.addEventListener('click', () => void connect(w));
    list.append(button);
  }
  say('wallets-msg', found.length ? '' : 'No browser wallet found. Install one (Phantom, Solflare, Backpack, ...) or use the steps without an extension below.');
}
getWallets().on('register', renderWallets);
getWallets().on('unregister', renderWallets);
renderWallets();

async function connect(w: Wallet) {
  say('wallets-msg', `Connecting to ${w.name}...`);
  try {
    const { accounts } = await (w.features[CONNECT] as ConnectFeature).connect();
    const account = accounts.find((a) => a.features.includes(SIGN)) ?? accounts[0];
    if (!account) return say('wallets-msg', `${w.name} shared no account.`, 'error');
    say('wallets-msg', '');
    useWallet({ address: account.address, standard: w, account });
  } catch (e) {
    say('wallets-msg', `${w.name} did not connect: ${e instanceof Error ? e.message : String(e)}`, 'error');
  }
}

function useWallet(w: NonNullable<typeof wallet>) {
  wallet = w;
  el('connected').hidden = false;
  el('connected-address').textContent = w.address;
  el('sign-claim').hidden = !w.standard;
  void checkDeposit();
}

// ---- deposit status ----------------------------------------------------------------------------
async function checkDeposit() {
  clearTimeout(pollTimer);
  if (!wallet || claimed) return;
  const address = wallet.address;
  const { status, body } = await api(`/api/keys/deposit?wallet=${encodeURIComponent(address)}`);
  if (wallet?.address !== address || claimed) return;
  const ready = status === 200 && body.status === 'claimable';
  (el('sign-claim') as HTMLButtonElement).disabled = !ready;
  if (ready) return say('deposit-msg', `A deposit from ${address} is waiting. Sign the challenge to get your API key.`, 'ok');
  if (status === 200 && body.status === 'below_minimum') {
    say('deposit-msg', `Transfers from ${address} seen so far add up to less than the minimum of ${sol(config.minDepositLamports)}. Send more to the gateway address: small transfers add up until they reach it.`, 'error');
  } else if (status === 200) {
    say('deposit-msg', `No deposit from ${address} seen yet. Send at least ${sol(config.minDepositLamports)} to the gateway address on ${config.network} from this wallet; this page checks again every few seconds.`, 'info');
  } else {
    say('deposit-msg', `Could not check for a deposit (${status}): ${describeError(body)}`, 'error');
  }
  pollTimer = setTimeout(() => void checkDeposit(), POLL_MS);
}
el('check-again').addEventListener('click', () => void checkDeposit());

// ---- challenge, signature, claim ---------------------------------------------------------------
async function newChallenge(address: string): Promise<Challenge | undefined> {
  const { status, body } = await api(`/api/keys/challenge?wallet=${encodeURIComponent(address)}`);
  if (status !== 200) {
    say('claim-msg', `Could not get a challenge (${status}): ${describeError(body)}`, 'error');
    return undefined;
  }
  return { challenge: body.challenge, wallet: address, expiresAt: body.expiresAt };
}

const expired = (c: Challenge) => Date.now() / 1000 >= c.expiresAt;
const expiredText = 'The challenge expired (it is valid for a few minutes and only once). Get a new challenge and sign it again.';
const wrongWallet = (address: string) =>
  `This signature was not made by wallet ${address} over the exact challenge text. Sign with the wallet that sent the deposit, or check that you signed the text exactly as shown.`;

async function claim(c: Challenge, signature: Uint8Array) {
  if (expired(c)) return say('claim-msg', expiredText, 'error');
  if ((await signedBy(signature, c.challenge, c.wallet)) === false) return say('claim-msg', wrongWallet(c.wallet), 'error');
  say('claim-msg', 'Claiming...');
  const { status, body } = await api('/api/keys/claim', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ wallet: c.wallet, signature: base58.encode(signature), challenge: c.challenge }),
  });
  if (status === 200 && typeof body.apiKey === 'string') return showKey(body.apiKey);
  if (status === 401) return say('claim-msg', expired(c) ? expiredText : `${wrongWallet(c.wallet)} (Or this challenge was already used: get a new one.)`, 'error');
  if (status === 404) {
    // The gateway says what the wallet still holds (a revoked key's credit stays with it) and the way to a new key.
    const held = body.code === 'credit_without_key' ? `${c.wallet} still holds ${sol(Number(body.creditLamports))} of credit and ${body.freeCallsRemaining} free calls, kept for it. ` : '';
    return say(
      'claim-msg',
      `No deposit from ${c.wallet} is waiting to be claimed. ${held}Send at least ${sol(config.minDepositLamports)} to the gateway address on ${config.network} from this wallet, then claim again${held ? ': the new key carries the credit' : ''} (a deposit is claimed once).`,
      held ? 'info' : 'error',
    );
  }
  say('claim-msg', `Claim refused (${status}): ${describeError(body)}`, 'error');
}

el('sign-claim').addEventListener('click', async () => {
  const w = wallet;
  if (!w?.standard || !w.account) return;
  const c = await newChallenge(w.address);
  if (!c) return;
  say('claim-msg', `Approve the signature request in ${w.standard.name}...`);
  try {
    const [out] = await (w.standard.features[SIGN] as SignMessageFeature).signMessage({ account: w.account, message: new TextEncoder().encode(c.challenge) });
    if (!out) return say('claim-msg', 'The wallet returned no signature.', 'error');
    await claim(c, out.signature);
  } catch (e) {
    say('claim-msg', `The wallet did not sign: ${e instanceof Error ? e.message : String(e)}`, 'error');
  }
});

// ---- without a browser extension ---------------------------------------------------------------
let manual: Challenge | undefined;
let countdown: ReturnType<typeof setInterval> | undefined;

el('manual-challenge').addEventListener('click', async () => {
  const address = (el<HTMLInputElement>('manual-wallet').value ?? '').trim();
  let bytes: Uint8Array | undefined;
  try {
    bytes = base58.decode(address);
  } catch {}
  if (bytes?.length !== 32) return say('manual-msg', 'Enter the base58 address of the wallet that sent the deposit.', 'error');
  useWallet({ address });
  const c = await newChallenge(address);
  if (!c) return;
  manual = c;
  el('manual-text').textContent = c.challenge;
  el('manual-step2').hidden = false;
  clearInterval(countdown);
  const tick = () => {
    const left = Math.max(0, Math.round(c.expiresAt - Date.now() / 1000));
    el('manual-expiry').textContent = left > 0 ? `valid for ${left} s more, once` : 'expired: get a new challenge';
  };
  tick();
  countdown = setInterval(tick, 1000);
  say('manual-msg', '');
});

el('manual-claim').addEventListener('click', async () => {
  if (!manual) return;
  let signature: Uint8Array | undefined;
  try {
    signature = base58.decode(el<HTMLInputElement>('manual-signature').value.trim());
  } catch {}
  if (signature?.length !== 64) return say('claim-msg', 'Paste the signature as base58 (64 bytes, about 88 characters).', 'error');
  await claim(manual, signature);
});

// ---- the key, once -----------------------------------------------------------------------------
function showKey(apiKey: string) {
  claimed = true;
  clearTimeout(pollTimer);
  clearInterval(countdown);
  for (const id of ['connect-step', 'claim-step']) el(id).hidden = true;
  el('result').hidden = false;
  el('api-key').textContent = apiKey;
  el('mcp-config').textContent = JSON.stringify(
    { mcpServers: { 'solana-gateway': { url: `${location.origin}/mcp`, headers: { 'x-api-key': 'cig_... (your key)' } } } },
    null,
    2,
  );
  el('rest-example').textContent = `curl -H 'x-api-key: cig_... (your key)' '${location.origin}/api/keys/me'`;
}

el('copy-key').addEventListener('click', async () => {
  const key = el('api-key');
  try {
    await navigator.clipboard.writeText(key.textContent ?? '');
  } catch {
    // No clipboard API (an insecure origin): select the key and copy the selection.
    const range = document.createRange();
    range.selectNodeContents(key);
    getSelection()?.removeAllRanges();
    getSelection()?.addRange(range);
    document.execCommand('copy');
  }
  say('copy-msg', 'Copied. Keep it somewhere safe: this page will not show it again.', 'ok');
});

for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-copy]')) {
  button.addEventListener('click', () => void navigator.clipboard.writeText(el(button.dataset.copy!).textContent ?? '').catch(() => {}));
}
