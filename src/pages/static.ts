// Serving the browser pages from the binary: every script and style comes from this server, each
// page carries a Content-Security-Policy that lets the browser fetch nothing from anywhere else, and
// versioned assets are cached for good and sent gzipped when the browser accepts it.
import { createHash } from 'node:crypto';

/** The SHA-256 CSP source of an inline script, so the page needs no 'unsafe-inline' for scripts. */
export const scriptHash = (source: string) => `'sha256-${createHash('sha256').update(source).digest('base64')}'`;

/** Only this origin: scripts (plus the given inline hashes), styles, images, fonts and fetches. */
export function selfOnlyPolicy(inlineScripts: string[] = []): string {
  return [
    "default-src 'self'",
    `script-src 'self' ${inlineScripts.map(scriptHash).join(' ')}`.trim(),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function htmlPage(html: string, inlineScripts: string[]): () => Response {
  const headers = {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': selfOnlyPolicy(inlineScripts),
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  };
  return () => new Response(html, { headers });
}

/** A script (text, or a file embedded in the binary) under a versioned path: immutable, gzipped once. */
export function scriptAsset(source: string | Blob): (request: Request) => Promise<Response> {
  let plain: Uint8Array<ArrayBuffer> | undefined;
  let gzipped: Uint8Array<ArrayBuffer> | undefined;
  const headers = {
    'content-type': 'text/javascript; charset=utf-8',
    'cache-control': 'public, max-age=31536000, immutable',
    'x-content-type-options': 'nosniff',
    vary: 'accept-encoding',
  };
  return async (request) => {
    plain ??= typeof source === 'string' ? new TextEncoder().encode(source) : new Uint8Array(await source.arrayBuffer());
    if (!/\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')) return new Response(plain, { headers });
    gzipped ??= new Uint8Array(Bun.gzipSync(plain));
    return new Response(gzipped, { headers: { ...headers, 'content-encoding': 'gzip' } });
  };
}

/** Escapes text for an HTML text node or a double-quoted attribute. */
export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
