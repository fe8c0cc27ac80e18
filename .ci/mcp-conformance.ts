// The official MCP conformance suite (@modelcontextprotocol/conformance, run with Bun: its CLI
// needs fs.globSync, which Node 20 lacks) against a freshly started gateway on loopback. Every
// server scenario that applies to this gateway must pass; the others are listed with the reason
// they do not apply. Exits non-zero when one fails. Usage: bun .ci/mcp-conformance.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dir, '..');
const CLI = join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

export const SCENARIOS = [
  'server-initialize',
  'ping',
  'tools-list',
  'server-sse-multiple-streams',
  'server-sse-polling',
  'dns-rebinding-protection',
  'resources-list',
  'prompts-list',
];

/** Scenarios that test the reference server's own demo surface, or features this gateway does not offer. */
export const LEFT_OUT: Record<string, string> = {
  'tools-call-simple-text': "calls the reference server's demo tool test_simple_text",
  'tools-call-image': "calls the demo tool test_image_content (this gateway's tools answer JSON text)",
  'tools-call-audio': 'calls the demo tool test_audio_content',
  'tools-call-embedded-resource': 'calls the demo tool test_embedded_resource',
  'tools-call-mixed-content': 'calls the demo tool test_multiple_content_types',
  'tools-call-with-logging': 'calls the demo tool test_tool_with_logging; no logging capability here',
  'tools-call-error': 'calls the demo tool test_error_handling',
  'tools-call-with-progress': 'calls the demo tool test_tool_with_progress',
  'tools-call-sampling': 'calls the demo tool test_sampling; this gateway never asks the client to sample',
  'tools-call-elicitation': 'calls the demo tool test_elicitation; this gateway never elicits',
  'elicitation-sep1034-defaults': 'elicitation demo tool',
  'elicitation-sep1330-enums': 'elicitation demo tool',
  'json-schema-2020-12': 'expects the demo tool json_schema_2020_12_tool',
  'logging-set-level': 'no logging capability (logging/setLevel is deprecated in 2026-07-28)',
  'completion-complete': 'no completions capability',
  'resources-read-text': 'reads the demo resource test://static-text',
  'resources-read-binary': 'reads the demo resource test://static-binary',
  'resources-templates-read': 'reads the demo template test://template/{id}/data',
  'resources-subscribe': 'no resource subscriptions (the resources never change while running)',
  'resources-unsubscribe': 'no resource subscriptions',
  'prompts-get-simple': 'gets the demo prompt test_simple_prompt',
  'prompts-get-with-args': 'gets the demo prompt test_prompt_with_arguments',
  'prompts-get-embedded-resource': 'gets the demo prompt test_prompt_with_embedded_resource',
  'prompts-get-with-image': 'gets the demo prompt test_prompt_with_image',
};

async function freePort(): Promise<number> {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

async function waitForHealth(url: string, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {}
    await Bun.sleep(100);
  }
  throw new Error(`gateway did not answer /healthz within ${timeoutMs} ms`);
}

if (import.meta.main) {
  const dir = mkdtempSync(join(tmpdir(), 'cig-conformance-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const gateway = Bun.spawn(['bun', join(ROOT, 'src/main.ts')], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_PATH: join(dir, 'gw.sqlite'), DEPOSIT_POLL_SECONDS: '0', LOG_LEVEL: 'warn' },
    stdout: 'ignore',
    stderr: 'ignore',
  });
  let failed = 0;
  try {
    await waitForHealth(url);
    for (const scenario of SCENARIOS) {
      const run = Bun.spawn(['bun', CLI, 'server', '--url', `${url}/mcp`, '--scenario', scenario], { stdout: 'pipe', stderr: 'pipe' });
      const out = (await new Response(run.stdout).text()) + (await new Response(run.stderr).text());
      const code = await run.exited;
      const summary = /Passed: .*/.exec(out)?.[0] ?? 'no summary';
      console.log(`${code === 0 ? 'pass' : 'FAIL'}  ${scenario}  (${summary})`);
      if (code !== 0) {
        failed++;
        console.log(out);
      }
    }
    console.log('\nleft out (not applicable to this gateway):');
    for (const [scenario, why] of Object.entries(LEFT_OUT)) console.log(`  ${scenario}: ${why}`);
  } finally {
    gateway.kill('SIGTERM');
    await gateway.exited;
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\nMCP conformance: ${SCENARIOS.length - failed} of ${SCENARIOS.length} applicable scenarios passed`);
  process.exit(failed === 0 ? 0 : 1);
}
