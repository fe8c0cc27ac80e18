// `bun run demo` is what a newcomer runs first: it must finish, and what it prints must be what it
// did (the challenge it shows signed is the one its claim sends).
import { expect, test } from 'bun:test';
import { join } from 'node:path';

test('bun run demo runs the journey to the end and claims with the challenge it showed signed', async () => {
  const p = Bun.spawn(['bun', join(import.meta.dir, '../support/demo.ts')], { env: { PATH: process.env.PATH! }, stdout: 'pipe', stderr: 'pipe' });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  expect(err).toBe('');
  expect(code).toBe(0);
  const signed = /^ {3}challenge: ([0-9a-f]{64})$/m.exec(out)?.[1];
  expect(signed).toBeDefined();
  expect(out).toContain(`POST /api/keys/claim (challenge ${signed}) -> 200`);
  expect(out).not.toContain('fresh challenge');
  expect(out).toContain('"status":"claimable"');
  expect(out).toContain('-> 402: Payment required');
  expect(out.trimEnd().split('\n').at(-1)).toStartWith('Done:');
}, 60_000);
