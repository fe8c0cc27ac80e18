// /llms.txt (llmstxt.org): what an agent reading one plain file needs to use this gateway, generated
// from the capability registry and the settings, like the OpenAPI document and the MCP manifest.
// It lives beside both faces (it names REST routes and MCP endpoints) and imports neither's routes.
import { x402Note } from './calls/ways-to-pay.ts';
import { afterFreeCalls, lamportsApart, lamportsFor, x402UnitsFor } from './billing/prices.ts';
import { restPath, type Capability } from './capabilities/capability.ts';
import { CAPABILITIES } from './capabilities/registry.ts';
import { formatSol } from './chain/format.ts';
import { NETWORKS, type Config } from './config.ts';
import { MCP_HTTP_PATH, MCP_MESSAGES_PATH, MCP_SSE_PATH } from './mcp/paths.ts';
import { AI_CATALOG_PATH, JWKS_PATH, MCP_CATALOG_PATH, RESOURCES_PATH, SERVER_CARD_SUFFIX } from './discovery/paths.ts';
import { WATCH_TOOL_NAMES } from './watch/mcp.ts';
import { eventPrice, MAX_WAIT_SECONDS } from './watch/watches.ts';

export const LLMS_TXT_PATH = '/llms.txt';

const sol = (lamports: number) => `${formatSol(lamports)} SOL`;

function usage(cap: Capability): string {
  const fields = Object.entries(cap.params);
  if (cap.method === 'POST') return `POST ${restPath(cap)} with a JSON body {${fields.map(([k, p]) => `"${k}"${p.required ? '' : '?'}`).join(', ')}}`;
  const required = fields.filter(([, p]) => p.required).map(([k]) => `${k}=<${k}>`);
  const optional = fields.filter(([, p]) => !p.required).map(([k]) => `${k}=…`);
  const query = required.length
    ? `?${required.join('&')}${optional.map((o) => `[&${o}]`).join('')}`
    : optional.map((o, i) => `[${i ? '&' : '?'}${o}]`).join('');
  return `GET ${restPath(cap)}${query}`;
}

function capabilityEntry(cap: Capability, config: Config): string {
  const x402 = x402UnitsFor(config, cap.name);
  const price = cap.paid ? `Paid (${lamportsFor(config, cap.name)} lamports${x402 === undefined ? '' : `, or ${x402} atomic units by x402`})` : 'Free';
  const params = Object.entries(cap.params)
    .map(([k, p]) => `\`${k}\`${p.required ? ' (required)' : ''}: ${(p.schema as { description?: string }).description ?? ''}`)
    .join('; ');
  return `- \`${usage(cap)}\` · MCP tool \`${cap.tool}\` · ${price}. ${cap.description}${params ? ` Parameters: ${params}.` : ''}`;
}

/** The capabilities priced apart from the flat price, as a clause ("" when none). */
function apart(config: Config): string {
  const entries = Object.entries(lamportsApart(config));
  return entries.length ? ` (except ${entries.map(([name, price]) => `${name}: ${price} lamports`).join(', ')}; each capability below says its price)` : '';
}

/** Spending a wallet's credit without a key, when this gateway offers it. */
function signInSection(config: Config): string[] {
  if (!config.siwx || !config.gatewayAddress) return [];
  return [
    '## Signing in with the wallet instead of a key',
    '',
    "A wallet with credit (deposited and claimed once, as above) can spend it without keeping the key: the 402 of a paid call carries x402's `sign-in-with-x` challenge (CAIP-122, Solana Ed25519) in its `PAYMENT-REQUIRED` header, over MCP in the result's `_meta[\"x402/sign-in-with-x\"]`.",
    'Sign it with the wallet and send the same call again with the proof in the `SIGN-IN-WITH-X` header (base64 JSON), over MCP in `params._meta["x402/sign-in-with-x"]`. The call is debited from that wallet\'s credit exactly as its key\'s would be. A proof is good for one call and a few minutes; an expired, replayed or foreign proof answers 402 with `code: "siwx_refused"` and the reason in `siwxError`.',
    'With the official client: `new x402HTTPClient(new x402Client()).onPaymentRequired(createSIWxClientHook(signer))` from `@x402/core/client` and `@x402/extensions/sign-in-with-x`, passed to `wrapFetchWithPayment`.',
    '',
  ];
}

/** The second way to pay, when this gateway offers it: x402 per call, no account. */
function x402Section(config: Config): string[] {
  const note = x402Note(config);
  if (!note) return [];
  return [
    '## Paying per call with x402 (no account)',
    '',
    note,
    '',
    '1. Call the paid route as is. The 402 carries the offer: version 2 in the `PAYMENT-REQUIRED` header (base64 JSON), version 1 as `x402Version` and `accepts` in the body.',
    '2. Sign the `exact` payment (a TransferChecked of exactly the price into the gateway\'s token account, with the offer\'s `extra.feePayer` as fee payer) and send the same request again with it in `PAYMENT-SIGNATURE` (version 2) or `X-PAYMENT` (version 1); over MCP, in `params._meta["x402/payment"]`.',
    '3. The answer carries `PAYMENT-RESPONSE` (or `X-PAYMENT-RESPONSE`; over MCP `_meta["x402/payment-response"]`): the transaction, the payer and the network. A call that fails costs nothing and its payment is never submitted; a payment is accepted once.',
    '',
    'With the official client: `wrapFetchWithPayment(fetch, new x402Client().register("solana:*", new ExactSvmScheme(signer)))` from `@x402/fetch`, `@x402/core/client` and `@x402/svm/exact/client` pays and retries by itself.',
    'A wallet that also holds an API key sees its settled x402 calls in `GET /api/keys/me/usage` (`paidWith: "x402"`, with payer, asset, amount and transaction).',
    '',
  ];
}

/** Watches: being told of a wallet's activity instead of polling for it. */
function watchSection(config: Config): string[] {
  return [
    '## Watching wallets (pushed, paid per event)',
    '',
    `\`POST /api/watches\` with the key and \`{"wallets": [...], "network"?, "webhookUrl"?}\`: each transaction touching one of them becomes one event, \`{"id", "type": "wallet.activity", "watchId", "wallet", "signature", "slot", "blockTime", "commitment", "item"}\` (item: what \`transactions?decode=true\` says of it). Read them with \`GET /api/watches/{id}/events?after=<nextCursor>&wait=<seconds, at most ${MAX_WAIT_SECONDS}>\`, or give an https \`webhookUrl\` to have each POSTed, signed per Standard Webhooks with the \`secret\` returned once. Each event costs ${eventPrice(config)} lamports of credit, once; x402 cannot pay for a watch. \`GET /api/watches\`, \`GET\`/\`DELETE /api/watches/{id}\`, \`POST /api/watches/{id}/replay\`.`,
    '',
  ];
}

export function llmsTxt(config: Config): string {
  const paid = CAPABILITIES.filter((c) => c.paid);
  const free = CAPABILITIES.filter((c) => !c.paid);
  const deposit = config.gatewayAddress
    ? `Send at least ${config.minDepositLamports} lamports (${sol(config.minDepositLamports)}) to \`${config.gatewayAddress}\` on ${config.paymentNetwork} from the wallet that will own the key. Credit is 1:1 with the lamports deposited.`
    : 'Deposits are not configured on this gateway (no GATEWAY_ADDRESS), so keys cannot be bought here; free capabilities still work.';
  return [
    '# Chain Intelligence Gateway',
    '',
    '> Processed Solana data for AI agents over REST (JSON) and MCP: balances, blockhash, token holdings, transaction history, associated token accounts, token security profiles, priority-fee tiers, transaction decoding and simulation.',
    '',
    `Every capability takes an optional \`network\`: ${NETWORKS.map((n) => `\`${n}\``).join(' or ')} (default \`mainnet-beta\`). ` +
      `${free.map((c) => c.name).join(' and ')} are free; the other ${paid.length} cost ${config.priceLamports} lamports (${sol(config.priceLamports)}) per call${apart(config)}` +
      `${afterFreeCalls(config.freeCalls)}${config.freeCalls > 0 ? " granted on a wallet's first claim" : ''}. A rejected request (400) costs nothing, and a call that fails is refunded. ` +
      'Success bodies carry `network` and `live_status: "SUCCESS"`; error bodies carry `error` (and often `hint`). Raw token amounts are decimal strings beside `decimals`; lamports are JSON integers.',
    '',
    '## Capabilities',
    '',
    ...CAPABILITIES.map((c) => capabilityEntry(c, config)),
    '',
    '## Buying and sending an API key',
    '',
    `1. ${deposit}`,
    '2. `GET /api/keys/challenge?wallet=<your wallet>` returns `{"challenge": "<64 hex chars>", ...}`, valid for a few minutes.',
    "3. Sign the challenge string's UTF-8 bytes with the wallet's Ed25519 key; encode the 64-byte signature in base58.",
    '4. `POST /api/keys/claim` with `{"wallet": "<wallet>", "signature": "<base58>", "challenge": "<challenge>"}` returns `{"apiKey": "cig_…"}` once. 404 means the deposit has not been seen yet; 401 means the challenge or signature is wrong (ask for a new challenge).',
    '5. Send the key on every paid call as the `x-api-key` header (or `Authorization: Bearer <key>`). `GET /api/keys/me` shows the credit and free calls left; paid answers carry `x-credits-remaining` and `x-free-calls-remaining` headers. `GET /api/keys/me/usage` lists your paid calls, newest first (`?limit=`, `?before=<nextCursor>`): time, capability, REST or MCP, cost, refund, status.',
    '',
    '`GET /api/keys/deposit?wallet=<your wallet>` says whether your deposit has been seen (`claimable`). A person with a browser wallet can do all of this on the `/claim` page.',
    '',
    'Without a usable key a paid call answers 402 with `priceLamports`, `payTo` and `instructions`. Too many requests answer 429 with `Retry-After`; REST and MCP share one rate limit.',
    '',
    ...signInSection(config),
    ...x402Section(config),
    ...watchSection(config),
    '## MCP',
    '',
    `- Streamable HTTP: \`${MCP_HTTP_PATH}\``,
    `- HTTP+SSE: \`GET ${MCP_SSE_PATH}\` opens the stream; its first event names \`${MCP_MESSAGES_PATH}?sessionId=…\`, where JSON-RPC messages are POSTed.`,
    `- Tools: ${CAPABILITIES.map((c) => `\`${c.tool}\``).join(', ')}; each returns the same JSON as its REST route. Send the key as the \`x-api-key\` (or \`Authorization: Bearer\`) header on every MCP request.`,
    `- Watches: ${WATCH_TOOL_NAMES.map((n) => `\`${n}\``).join(', ')}; each watch's events are the resource \`solana://<network>/watches/<id>/events\` (\`resources/subscribe\`, or \`subscriptions/listen\` on 2026-07-28, tells you of new ones).`,
    `- Client configuration: \`{"mcpServers": {"solana": {"url": "<this gateway>${MCP_HTTP_PATH}", "headers": {"x-api-key": "<your key>"}}}}\``,
    '',
    '## Reference',
    '',
    '- [OpenAPI 3.1 document](/openapi.json): every route with its parameters, response schemas and errors',
    '- [MCP manifest](/.well-known/mcp.json): the MCP tools and endpoints',
    `- [Paid resources](${RESOURCES_PATH}): every paid route and tool with its prices, in the x402 facilitator discovery shape (\`?limit=\`, \`?cursor=\`, \`?type=http|mcp\`)`,
    `- [MCP server card](${MCP_HTTP_PATH}${SERVER_CARD_SUFFIX}) and [MCP catalog](${MCP_CATALOG_PATH}) (also [AI catalog](${AI_CATALOG_PATH}))`,
    `- [x402 receipt key](${JWKS_PATH}): the public key that signs x402 offers and receipts (JWKS; empty when none is configured)`,
    '- [API reference page](/docs): the same document, readable in a browser',
    '- [Claim page](/claim): buy a key with a browser wallet',
    '- [Health](/healthz)',
    '',
  ].join('\n');
}
