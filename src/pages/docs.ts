// The API reference page at /swagger (and /docs): the Scalar viewer, pinned by package version and
// served from the binary, reading this gateway's OpenAPI document. Nothing is fetched from elsewhere:
// Scalar's default fonts, proxy and telemetry are turned off and the page's CSP forbids other hosts.
import { Elysia } from 'elysia';
// Embedded as a file, not a string: a string would be stored twice in a --bytecode binary.
import scalarFile from '../../node_modules/@scalar/api-reference/dist/browser/standalone.js' with { type: 'file' };
import scalarPackage from '../../node_modules/@scalar/api-reference/package.json' with { type: 'json' };
import { escapeHtml, htmlPage, scriptAsset } from './static.ts';

export const DOCS_PATHS = ['/swagger', '/docs'] as const;
export const SCALAR_VERSION: string = scalarPackage.version;
export const SCALAR_ASSET_PATH = `/docs/assets/scalar-api-reference-${SCALAR_VERSION}.js`;

export function docsRoutes(opts: { specUrl: string; title: string }) {
  const config = {
    url: opts.specUrl,
    withDefaultFonts: false,
    // Eleven operations in five tags: list them all in the sidebar rather than behind a click each.
    defaultOpenAllTags: true,
    telemetry: false,
    proxyUrl: '',
    showDeveloperTools: 'never',
    agent: { disabled: true },
    // Its "Generate MCP" button sends users to a hosted service; this gateway is an MCP server already.
    mcp: { disabled: true },
  };
  const init = `Scalar.createApiReference('#app', ${JSON.stringify(config)});`;
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(opts.title)} - API reference</title>
<link rel="icon" href="/favicon.ico">
<style>body{margin:0}</style>
</head>
<body>
<div id="app"></div>
<script src="${SCALAR_ASSET_PATH}"></script>
<script>${init}</script>
</body>
</html>`;
  const page = htmlPage(html, [init]);
  const asset = scriptAsset(Bun.file(scalarFile));
  const app = new Elysia({ name: 'docs' }).get(SCALAR_ASSET_PATH, ({ request }) => asset(request));
  for (const path of DOCS_PATHS) app.get(path, page);
  return app;
}
