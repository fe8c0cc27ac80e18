// The claim page at /claim: buy an API key with any Wallet Standard browser wallet (or any signing
// tool), served from the binary with its script bundled in (claim/client.bundle.js) and nothing
// fetched from elsewhere. The page talks only to the JSON key routes; the key is shown once.
import { createHash } from 'node:crypto';
import { Elysia } from 'elysia';
import type { Config } from '../config.ts';
import clientSource from './claim/client.bundle.js' with { type: 'text' };
import { toJson } from '../json.ts';
import { escapeHtml, htmlPage, scriptAsset } from './static.ts';

export const CLAIM_PATH = '/claim';
const scriptPath = `/claim/assets/claim-${createHash('sha256').update(clientSource).digest('hex').slice(0, 12)}.js`;

/** JSON inside a <script> element: `<` escaped so no value can close the element. */
const scriptJson = (value: unknown) => toJson(value).replace(/</g, '\\u003c');

/** `x402`: how to pay per call with x402, in one sentence (empty when it is off). */
export function claimRoutes(config: Config, x402: string) {
  const facts = {
    gatewayAddress: config.gatewayAddress ?? null,
    network: config.paymentNetwork,
    minDepositLamports: config.minDepositLamports,
    priceLamports: config.priceLamports,
    pricesLamports: config.prices,
    freeCalls: config.freeCalls,
  };
  const page = htmlPage(claimHtml(scriptJson(facts), x402), []);
  const asset = scriptAsset(clientSource);
  return new Elysia({ name: 'claim' })
    .get(CLAIM_PATH, page)
    .get(scriptPath, ({ request }) => asset(request));
}

function claimHtml(factsJson: string, x402: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Buy an API key - Chain Intelligence Gateway</title>
<link rel="icon" href="/favicon.ico">
<style>
  :root { color-scheme: light dark; --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --ok: #1a7f37; --err: #cf222e; --accent: #0969da; --bg2: #f6f8fa; }
  @media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #8d96a0; --line: #30363d; --ok: #3fb950; --err: #f85149; --accent: #4493f8; --bg2: #161b22; } }
  body { font: 16px/1.5 system-ui, sans-serif; color: var(--fg); max-width: 46rem; margin: 2rem auto; padding: 0 1rem; }
  h1 { font-size: 1.6rem; margin-bottom: .25rem; } h2 { font-size: 1.15rem; margin-top: 2rem; border-bottom: 1px solid var(--line); padding-bottom: .25rem; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .35rem 1rem; } dt { color: var(--muted); } dd { margin: 0; overflow-wrap: anywhere; }
  code, pre, input { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .9rem; }
  pre, .challenge { background: var(--bg2); border: 1px solid var(--line); border-radius: 6px; padding: .6rem .8rem; overflow-x: auto; overflow-wrap: anywhere; white-space: pre-wrap; }
  button { font: inherit; padding: .4rem .9rem; border-radius: 6px; border: 1px solid var(--line); background: var(--bg2); color: var(--fg); cursor: pointer; }
  button.primary { background: var(--accent); border-color: var(--accent); color: #fff; } button:disabled { opacity: .5; cursor: not-allowed; }
  .wallet { display: inline-flex; align-items: center; gap: .5rem; margin: 0 .5rem .5rem 0; } .wallet img { width: 24px; height: 24px; }
  input { width: 100%; box-sizing: border-box; padding: .45rem; border: 1px solid var(--line); border-radius: 6px; background: transparent; color: var(--fg); }
  .row { display: flex; gap: .5rem; align-items: center; } .row input { flex: 1; }
  .msg { padding: .5rem .75rem; border-radius: 6px; border-left: 4px solid var(--accent); background: var(--bg2); }
  .msg.ok { border-color: var(--ok); } .msg.error { border-color: var(--err); }
  .muted { color: var(--muted); } details { margin-top: 1.25rem; } summary { cursor: pointer; }
  /* The key as text, not in an input: an input's box cut the underscore of "cig_" at 1x. */
  .key { flex: 1; display: block; padding: .5rem .75rem; line-height: 1.7; border: 1px solid var(--line); border-radius: 6px; background: var(--bg2); overflow-wrap: anywhere; user-select: all; }
</style>
</head>
<body>
<main>
<h1>Buy an API key</h1>
<p class="muted">Deposit SOL from your wallet to the gateway address, then prove you own that wallet by signing a one-time challenge. The key is shown once, on this page only.</p>
<dl>
  <dt>Gateway address</dt><dd><code id="gateway-address"></code> <button type="button" id="copy-address" data-copy="gateway-address" hidden>Copy</button></dd>
  <dt>Network</dt><dd id="network"></dd>
  <dt>Minimum deposit</dt><dd id="min-deposit"></dd>
  <dt>Price</dt><dd id="price"></dd>
</dl>
${x402 ? `<p id="x402-note" class="muted">No key needed to pay per call: ${escapeHtml(x402)}</p>\n` : ''}<p id="gateway-msg" class="msg" hidden></p>

<section id="connect-step">
  <h2>1. Connect the wallet that deposits</h2>
  <div id="wallets"></div>
  <p id="wallets-msg" class="msg" hidden></p>
  <div id="connected" hidden>
    <p>Wallet: <code id="connected-address"></code></p>
    <p id="deposit-msg" class="msg" hidden></p>
    <button type="button" id="check-again">Check again</button>
  </div>
</section>

<section id="claim-step">
  <h2>2. Sign the challenge and claim</h2>
  <button type="button" id="sign-claim" class="primary" hidden disabled>Sign the challenge and get my key</button>
  <details id="manual">
    <summary>No browser wallet? Sign with any tool</summary>
    <p>Enter the address that sent the deposit and get a challenge:</p>
    <div class="row"><input id="manual-wallet" placeholder="wallet address (base58)" autocomplete="off" spellcheck="false"><button type="button" id="manual-challenge">Get challenge</button></div>
    <p id="manual-msg" class="msg" hidden></p>
    <div id="manual-step2" hidden>
      <p>Sign exactly this text (its UTF-8 bytes, as a raw Ed25519 message, not Solana's off-chain message format) with that wallet's key <span class="muted" id="manual-expiry"></span>:</p>
      <div class="row"><code class="challenge" id="manual-text"></code><button type="button" data-copy="manual-text">Copy</button></div>
      <p class="muted">For example with @solana/kit: <code>base58(await signBytes(keyPair.privateKey, new TextEncoder().encode(text)))</code>.</p>
      <p>Paste the signature (base58):</p>
      <div class="row"><input id="manual-signature" placeholder="base58 signature" autocomplete="off" spellcheck="false"><button type="button" id="manual-claim" class="primary">Claim</button></div>
    </div>
  </details>
  <p id="claim-msg" class="msg" hidden></p>
</section>

<section id="result" hidden>
  <h2>Your API key</h2>
  <p><strong>Copy it now: it is shown only this once.</strong> The gateway keeps only a hash of it; a new deposit and claim issue a new key that carries your remaining credit.</p>
  <div class="row"><code id="api-key" class="key" translate="no"></code><button type="button" id="copy-key" class="primary">Copy</button></div>
  <p id="copy-msg" class="msg" hidden></p>
  <h2>What next</h2>
  <p>REST: send the key in the <code>x-api-key</code> header (or <code>Authorization: Bearer</code>) on paid calls:</p>
  <pre id="rest-example"></pre>
  <p>MCP (Streamable HTTP at <code>/mcp</code>, legacy SSE at <code>/mcp/sse</code>): add the server to your client's configuration with the key as a header:</p>
  <pre id="mcp-config"></pre>
  <p>Your credit and free calls: <code>GET /api/keys/me</code>; your calls and what each cost: <code>GET /api/keys/me/usage</code>. API reference: <a href="/docs">/docs</a>.</p>
</section>
</main>
<script type="application/json" id="claim-config">${factsJson}</script>
<script src="${scriptPath}"></script>
</body>
</html>`;
}
