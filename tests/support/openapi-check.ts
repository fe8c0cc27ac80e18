// `bun run openapi:check`: asks the app (in process, no socket) for /openapi.json and runs the three
// checks issue 12 names on it: @redocly/cli lint (recommended rules), @apidevtools/swagger-parser
// validate, and openapi-typescript's output compiled by tsc --strict. Exits non-zero on any error.
import SwaggerParser from '@apidevtools/swagger-parser';
import { plugin } from 'bun';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildApp } from '../../src/app.ts';
import { restPath } from '../../src/capabilities/capability.ts';
import { CAPABILITIES } from '../../src/capabilities/registry.ts';
import { defaultConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import { createServices } from '../../src/services.ts';

const ROOT = resolve(import.meta.dir, '../..');
const bin = (name: string) => join(ROOT, 'node_modules/.bin', name);

const dir = mkdtempSync(join(tmpdir(), 'cig-openapi-'));
const services = await createServices({ ...defaultConfig(), databasePath: join(dir, 'gateway.sqlite'), depositPollSeconds: 0 }, createLogger('error', [], () => {}));
const res = await buildApp(services).handle(new Request('http://localhost/openapi.json'));
const doc = await res.text();
await services.close();
if (res.status !== 200) throw new Error(`/openapi.json answered ${res.status}`);
const file = join(dir, 'openapi.json');
writeFileSync(file, doc);

let failed = 0;
function run(title: string, cmd: string[]) {
  console.log(`== ${title}`);
  // Redocly would otherwise phone home (telemetry, update check); only the npm registry is reachable here.
  const p = Bun.spawnSync(cmd, { cwd: ROOT, stdout: 'inherit', stderr: 'inherit', env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } });
  if (p.exitCode !== 0) {
    failed++;
    console.log(`!! ${title} failed (exit ${p.exitCode})`);
  }
}

run('redocly lint (recommended)', [bin('redocly'), 'lint', '--extends=recommended', '--format=stylish', file]);

console.log('== swagger-parser validate');
try {
  await SwaggerParser.validate(file);
  console.log('valid');
} catch (e) {
  failed++;
  console.log(`!! swagger-parser: ${e instanceof Error ? e.message : String(e)}`);
}

// openapi-typescript needs TypeScript 5's JS API; the project's compiler is TypeScript 7 (native, no
// JS API). Its imports of "typescript" are pointed at the pinned typescript5 package instead.
const ts5 = require.resolve('typescript5');
plugin({
  name: 'typescript5-for-openapi-typescript',
  setup(b) {
    b.onLoad({ filter: /openapi-typescript\/dist\/.*\.mjs$/ }, (a) => ({
      contents: readFileSync(a.path, 'utf8').replace(/from ["']typescript["']/g, `from ${JSON.stringify(ts5)}`),
      loader: 'js',
    }));
  },
});
console.log('== openapi-typescript');
const { default: openapiTS, astToString } = await import('openapi-typescript');
const types = astToString(await openapiTS(JSON.parse(doc)));
writeFileSync(join(dir, 'openapi.ts'), types);
// A client's use of the types: every capability's success body must be a real object type (a
// property of `never` does not compile), with live_status typed as the literal it is.
const uses = CAPABILITIES.map(
  (cap, i) =>
    `type B${i} = paths['${restPath(cap)}']['${cap.method.toLowerCase()}']['responses'][200]['content']['application/json'];\n` +
    `export const s${i} = (b: B${i}): 'SUCCESS' => b.live_status;\n`,
);
writeFileSync(
  join(dir, 'use.ts'),
  `import type { paths } from './openapi.ts';\n${uses.join('')}` +
    `type Paid = paths['/api/chain/decode-tx']['get']['responses'][402]['content']['application/json'];\n` +
    `export const price = (b: Paid): number => b.priceLamports;\n`,
);
run('tsc --strict on the generated types', [bin('tsc'), '--ignoreConfig', '--strict', '--noEmit', '--target', 'esnext', '--module', 'preserve', '--moduleResolution', 'bundler', '--allowImportingTsExtensions', join(dir, 'use.ts')]);

rmSync(dir, { recursive: true, force: true });
console.log(failed ? `${failed} check(s) failed` : 'all OpenAPI checks passed');
process.exit(failed ? 1 : 0);
