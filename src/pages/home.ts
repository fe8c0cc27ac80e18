// GET /: a browser (Accept: text/html) gets a small landing page linking the reference, the claim
// page and llms.txt; an agent or a script gets the JSON it always got. And /favicon.ico, drawn here
// (a 32x32 icon, no file to embed), so that no page asks for one in vain.
import { escapeHtml, htmlPage } from './static.ts';

/** The places `GET /` names (app.ts's HOME). */
export interface HomeLinks {
  name: string;
  version: string;
  docs: string;
  llmsTxt: string;
  openapi: string;
  mcp: { streamableHttp: string; sse: string; manifest: string };
  claim: string;
}

/** Whether the request prefers a page to JSON: a browser's navigation names text/html; fetch, curl and agents send any-type or JSON. */
export const wantsHtml = (request: Request) => /(^|,)\s*text\/html\b/.test(request.headers.get('accept') ?? '');

/** `x402`: how to pay per call with x402, in one sentence (empty when it is off). */
export function landingPage(home: HomeLinks, x402: string): () => Response {
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(home.name)}</title>
<link rel="icon" href="/favicon.ico">
<style>
  :root { color-scheme: light dark; --muted: #57606a; --line: #d0d7de; --accent: #0969da; }
  @media (prefers-color-scheme: dark) { :root { --muted: #8d96a0; --line: #30363d; --accent: #4493f8; } }
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem; }
  h1 { font-size: 1.6rem; margin-bottom: .25rem; } a { color: var(--accent); } .muted { color: var(--muted); }
  ul { padding-left: 1.2rem; } li { margin: .4rem 0; } code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .9rem; }
  footer { margin-top: 2rem; border-top: 1px solid var(--line); padding-top: .5rem; font-size: .875rem; }
</style>
</head>
<body>
<main>
<h1>${escapeHtml(home.name)}</h1>
<p class="muted">Processed Solana data for AI agents, over REST and MCP. Free endpoints need nothing; paid ones take an API key bought with a SOL deposit${x402 ? ', or an x402 payment per call' : ''}.</p>
<ul>
  <li><a href="${home.docs}">API reference</a>: every endpoint, with examples to try.</li>
  <li><a href="${home.claim}">Buy an API key</a> with a browser wallet.</li>
  <li><a href="${home.llmsTxt}">llms.txt</a>: the whole gateway for an agent, in one text.</li>
  <li><a href="${home.openapi}">OpenAPI document</a>; MCP at <code>${home.mcp.streamableHttp}</code> (Streamable HTTP) and <code>${home.mcp.sse}</code> (SSE), manifest <a href="${home.mcp.manifest}">${home.mcp.manifest}</a>.</li>
</ul>
${x402 ? `<p id="x402">${escapeHtml(x402)}</p>\n` : ''}<footer class="muted">version ${escapeHtml(home.version)} · this page for browsers; <code>GET /</code> answers JSON to anything else</footer>
</main>
</body>
</html>`;
  const page = htmlPage(html, []);
  return () => {
    const res = page();
    res.headers.set('vary', 'accept');
    return res;
  };
}

/** A 32x32 ICO (one 32-bit BMP image): a ring in the pages' accent blue, open on the right, a "C". */
export function favicon(): Uint8Array<ArrayBuffer> {
  const size = 32;
  const pixels = new Uint8Array(size * size * 4);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const dx = x + 0.5 - size / 2;
      const dy = y + 0.5 - size / 2;
      const r = Math.hypot(dx, dy);
      const open = dx > 0 && Math.abs(dy) < 5;
      const on = r <= 14 && r >= 8 && !open;
      // BMP rows run bottom-up, each pixel blue, green, red, alpha.
      const at = ((size - 1 - y) * size + x) * 4;
      if (on) pixels.set([0xda, 0x69, 0x09, 0xff], at);
    }
  }
  const mask = new Uint8Array(size * 4); // the AND mask, all 0: the alpha channel decides
  const bmp = 40 + pixels.length + mask.length;
  const out = new Uint8Array(6 + 16 + bmp);
  const v = new DataView(out.buffer);
  v.setUint16(2, 1, true); // type: icon
  v.setUint16(4, 1, true); // one image
  out[6] = size;
  out[7] = size;
  v.setUint16(10, 1, true); // planes
  v.setUint16(12, 32, true); // bits per pixel
  v.setUint32(14, bmp, true);
  v.setUint32(18, 22, true); // where the image starts
  v.setUint32(22, 40, true); // BITMAPINFOHEADER
  v.setInt32(26, size, true);
  v.setInt32(30, size * 2, true); // the colour image and its mask, stacked
  v.setUint16(34, 1, true);
  v.setUint16(36, 32, true);
  out.set(pixels, 22 + 40);
  out.set(mask, 22 + 40 + pixels.length);
  return out;
}

export function faviconRoute(): () => Response {
  const icon = favicon();
  const headers = { 'content-type': 'image/x-icon', 'cache-control': 'public, max-age=86400', 'x-content-type-options': 'nosniff' };
  return () => new Response(icon, { headers });
}
