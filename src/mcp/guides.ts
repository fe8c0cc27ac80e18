// What an agent can read and reuse besides the tools: resources (the price and how to pay, and
// each tool's documentation) and prompts built on the tools. All generated from the registry, the
// tool listing and the settings once, shared by every session.
import { afterFreeCalls, lamportsApart, lamportsFor, x402Note, type PriceSettings } from '../calls/ways-to-pay.ts';
import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError, type GetPromptResult, type Prompt, type Resource } from '@modelcontextprotocol/server';
import { inputSchema, restPath, successSchema, type Capability } from '../capabilities/capability.ts';
import type { CallDeps } from '../calls/pipeline.ts';
import { formatSol as sol } from '../chain/format.ts';

export const PRICING_URI = 'gateway://pricing';
export const toolUri = (cap: Capability) => `gateway://tools/${cap.tool}`;

interface Document extends Resource {
  text: string;
}

export interface Guides {
  resources: Resource[];
  read(uri: string): { contents: { uri: string; mimeType: string; text: string }[] };
  prompts: Prompt[];
  get(name: string, args: Record<string, string> | undefined): GetPromptResult;
}

/** What a tool's guide says about the price, so a model can weigh the call. */
export function priceNote(cap: Capability, priceLamports: number, freeCalls: number, x402 = ''): string {
  return cap.paid
    ? `Paid: ${priceLamports} lamports (${sol(priceLamports)} SOL) per call${afterFreeCalls(freeCalls)}; needs an API key sent as the x-api-key (or Authorization: Bearer) header on the MCP connection or request. ${x402 ? `${x402} ` : ''}Rejected arguments cost nothing; without a usable key the result is an error carrying payment instructions.`
    : 'Free: no API key needed.';
}

const json = (schema: unknown) => ['```json', JSON.stringify(schema, null, 2), '```'];

/**
 * A tool's guide: the long description the tool listing leaves out, its price and how it is paid,
 * its arguments, and both schemas with every field described (the listing's are compact).
 */
function toolDoc(cap: Capability, price: string): string {
  const params = Object.entries(cap.params)
    .map(([k, p]) => `- \`${k}\`${p.required ? ' (required)' : ''}${p.example ? `, e.g. \`${p.example}\`` : ''}`)
    .join('\n');
  return [
    `# ${cap.title} (\`${cap.tool}\`)`,
    '',
    cap.description,
    '',
    price,
    '',
    '## Arguments',
    params || '(none)',
    '',
    '## Input schema',
    ...json(inputSchema(cap)),
    '',
    '## Result',
    `The result is the JSON body of \`${cap.method} ${restPath(cap)}\` on the REST API, as text and as structuredContent: every field described below.`,
    ...json(successSchema(cap)),
  ].join('\n');
}

/** The tools priced apart from the flat price, in one line; none when every paid tool costs the same. */
function apartLine(config: PriceSettings, capabilities: readonly Capability[]): string[] {
  const lamports = lamportsApart(config);
  const apart = capabilities.filter((c) => c.paid && Object.hasOwn(lamports, c.name));
  return apart.length ? ['', `Priced apart: ${apart.map((c) => `${c.tool} costs ${lamports[c.name]} lamports`).join('; ')}.`] : [];
}

export function guides(deps: CallDeps, capabilities: readonly Capability[]): Guides {
  const config = deps.ctx.config;
  const pricing = [
    '# Price and payment',
    '',
    `Free tools: ${capabilities.filter((c) => !c.paid).map((c) => c.tool).join(', ')}.`,
    `Paid tools: ${capabilities.filter((c) => c.paid).map((c) => c.tool).join(', ')}.`,
    '',
    deps.payments.paymentRequired('How to pay', undefined, config.priceLamports).body.instructions as string,
    ...apartLine(config, capabilities),
    '',
    'Send the key as the x-api-key (or Authorization: Bearer) header on every MCP request. A paid tool without a usable key answers an error result with these instructions; invalid arguments are refused before any charge.',
    ...(deps.signIn
      ? [
          '',
          'A wallet that holds credit may sign in instead of sending its key: the error result of a paid tool carries a sign-in-with-x challenge in _meta["x402/sign-in-with-x"]; sign it with the wallet (CAIP-122, Ed25519) and call again with the proof in params._meta["x402/sign-in-with-x"]. The call is debited from that wallet\'s credit.',
        ]
      : []),
    ...(x402Note(config) ? ['', x402Note(config), 'The error result of a paid tool carries the offer (x402 version 2 PaymentRequired) in its text; a paid result carries the settlement in _meta["x402/payment-response"].'] : []),
  ].join('\n');
  const docs: Document[] = [
    { uri: PRICING_URI, name: 'pricing', title: 'Price and payment', description: 'What the paid tools cost and how to buy an API key with a SOL deposit.', mimeType: 'text/markdown', text: pricing },
    ...capabilities.map((cap) => ({
      uri: toolUri(cap),
      name: cap.tool,
      title: `${cap.title}: documentation`,
      description: `What ${cap.tool} does and answers, field by field, its arguments and price.`,
      mimeType: 'text/markdown',
      text: toolDoc(cap, priceNote(cap, lamportsFor(config, cap.name), config.freeCalls, x402Note(config, cap.name))),
    })),
  ];
  const byUri = new Map(docs.map((d) => [d.uri, d]));
  const resources = docs.map(({ text: _text, ...r }) => r);

  const prompts: (Prompt & { render(a: Record<string, string>): string })[] = [
    {
      name: 'assess_token_risk',
      title: "Assess a token's risk",
      description: 'Reads the token profile and explains its risk level, its authorities, its holder concentration and any trap extensions.',
      arguments: [
        { name: 'mint', description: 'Token mint address (base58)', required: true },
        { name: 'network', description: 'mainnet-beta (default) or devnet', required: false },
      ],
      render: (a) =>
        `Assess the risk of holding the Solana token ${a.mint}${a.network ? ` on ${a.network}` : ''}. Call the token_profile tool with this mint. ` +
        'Then explain, in plain words: its riskLevel and each reason given; whether a mint or freeze authority is still live and what that allows; ' +
        'how concentrated the top holders are; and any Token-2022 extension that could trap a holder (transfer fee, permanent delegate, transfer hook, non-transferable, default frozen, pausable). ' +
        'End with a one-line verdict. Do not guess beyond what the tool returns.',
    },
    {
      name: 'explain_transaction',
      title: 'Explain a transaction',
      description: 'Decodes a transaction and explains what moved, between whom, through which programs, and whether it failed.',
      arguments: [
        { name: 'signature', description: 'Transaction signature (base58)', required: true },
        { name: 'network', description: 'mainnet-beta (default) or devnet', required: false },
      ],
      render: (a) =>
        `Explain the Solana transaction ${a.signature}${a.network ? ` on ${a.network}` : ''}. Call the decode_tx tool with this signature. ` +
        'Say in two or three sentences what happened (its category and summary), which tokens or SOL moved and between whom, which programs were involved, ' +
        'what it cost in fees, and, if it failed, why. Quote amounts exactly as the tool gives them.',
    },
    {
      name: 'wallet_overview',
      title: 'Overview of a wallet',
      description: "Summarizes a wallet: its SOL balance, its token holdings and its latest transactions.",
      arguments: [
        { name: 'wallet', description: 'Wallet address (base58)', required: true },
        { name: 'network', description: 'mainnet-beta (default) or devnet', required: false },
      ],
      render: (a) =>
        `Give an overview of the Solana wallet ${a.wallet}${a.network ? ` on ${a.network}` : ''}. Call get_chain_balance, get_token_accounts and get_recent_transactions (limit 5) for it. ` +
        'Report the SOL balance, the tokens held with their amounts, and what the latest transactions did, briefly. Note which calls are paid before making them.',
    },
  ];
  const byName = new Map(prompts.map((p) => [p.name, p]));

  return {
    resources,
    read(uri) {
      const doc = byUri.get(uri);
      if (!doc) throw new ResourceNotFoundError(uri, `Resource ${uri} not found. Resources: ${docs.map((d) => d.uri).join(', ')}`);
      return { contents: [{ uri: doc.uri, mimeType: doc.mimeType!, text: doc.text }] };
    },
    prompts: prompts.map(({ render: _render, ...p }) => p),
    get(name, args = {}) {
      const prompt = byName.get(name);
      if (!prompt) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt ${name}. Prompts: ${[...byName.keys()].join(', ')}`);
      const missing = (prompt.arguments ?? []).filter((a) => a.required && !args[a.name]?.trim()).map((a) => a.name);
      if (missing.length > 0) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt ${name} needs ${missing.join(' and ')}`);
      return { description: prompt.description, messages: [{ role: 'user', content: { type: 'text', text: prompt.render(args) } }] };
    },
  };
}
