// The deployment files kept true: .env.example and docs/operations.md list every setting --help lists,
// the systemd unit passes systemd's own check, the Docker image builds and becomes ready.
import { describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { helpText, loadConfig } from '../../src/config.ts';

const ROOT = join(import.meta.dir, '../..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const helpEnvs = helpText()
  .split('\n')
  .flatMap((l) => l.match(/^ {2}--\S+\s+([A-Z_]+)(\s|$)/)?.[1] ?? []);

describe('.env.example', () => {
  const lines = read('.env.example').split('\n');
  const entries = lines.flatMap((l) => {
    const m = l.match(/^#? ?([A-Z_]+)=(.*)$/);
    return m ? [[m[1]!, m[2]!] as const] : [];
  });

  test('names every setting --help lists, once, and nothing else', () => {
    expect(helpEnvs.length).toBeGreaterThan(20);
    expect(entries.map(([k]) => k)).toEqual(helpEnvs);
  });

  test('every value it shows is accepted by the gateway', () => {
    const env = Object.fromEntries(entries.filter(([, v]) => v !== ''));
    expect(() => loadConfig([], env)).not.toThrow();
  });
});

test('the settings table in docs/operations.md names every setting --help lists', () => {
  const page = read('docs/operations.md');
  for (const env of helpEnvs) expect(page).toContain('`' + env + '`');
});

describe('systemd unit', () => {
  const unit = read('deploy/gateway.service');

  test('runs hardened, keeps its database in its StateDirectory', () => {
    for (const line of ['DynamicUser=yes', 'StateDirectory=gateway', 'ProtectSystem=strict', 'ProtectHome=yes', 'NoNewPrivileges=yes', 'PrivateTmp=yes', 'CapabilityBoundingSet=']) {
      expect(unit.split('\n')).toContain(line);
    }
    expect(unit).toContain('Environment=DATABASE_PATH=/var/lib/gateway/gateway.sqlite');
  });

  const analyze = Bun.which('systemd-analyze');
  test.skipIf(!analyze)('passes systemd-analyze verify without a complaint (skipped where systemd-analyze is not installed)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cig-unit-'));
    try {
      // The binary is not installed here; only the unit's own keys are checked.
      writeFileSync(join(dir, 'gateway.service'), unit.replace('ExecStart=/usr/local/bin/gateway', 'ExecStart=/usr/bin/true'));
      const p = Bun.spawnSync([analyze!, 'verify', join(dir, 'gateway.service')], { stderr: 'pipe', stdout: 'pipe' });
      expect(p.stderr.toString() + p.stdout.toString()).toBe('');
      expect(p.exitCode).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Docker image', () => {
  const dockerfile = read('Dockerfile');

  test('multi-stage, compiled binary on a slim base, non-root, a data volume, a health check on /readyz', () => {
    expect(dockerfile.match(/^FROM /gm)!.length).toBe(2);
    expect(dockerfile).toContain('bun build --compile');
    expect(dockerfile).toMatch(/^FROM debian:\S+-slim$/m);
    expect(dockerfile).toMatch(/^USER gateway$/m);
    expect(dockerfile).toContain('VOLUME ["/var/lib/gateway"]');
    expect(dockerfile).toMatch(/^HEALTHCHECK [\s\S]*\/readyz/m);
    expect(read('compose.yaml')).toContain('gateway-data:/var/lib/gateway');
  });

  // No container engine on this machine is the usual case: the docker client alone cannot build.
  const engine = Bun.which('docker') !== null && Bun.spawnSync(['docker', 'info'], { stdout: 'ignore', stderr: 'ignore' }).exitCode === 0;
  test.skipIf(!engine)('builds, starts as a non-root user and answers /healthz (skipped: `docker info` fails, no container engine)', async () => {
    const tag = `cig-test-${process.pid}`;
    const build = Bun.spawnSync(['docker', 'build', '-t', tag, ROOT], { stdout: 'pipe', stderr: 'pipe' });
    expect(build.exitCode).toBe(0);
    const run = Bun.spawnSync(['docker', 'run', '-d', '-P', tag], { stdout: 'pipe' });
    const id = run.stdout.toString().trim();
    try {
      const port = Bun.spawnSync(['docker', 'port', id, '3000/tcp'], { stdout: 'pipe' }).stdout.toString().trim().split(':').at(-1);
      const until = Date.now() + 30_000;
      let status = 0;
      while (Date.now() < until && status !== 200) {
        status = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status, () => 0);
        await Bun.sleep(250);
      }
      expect(status).toBe(200);
      expect(Bun.spawnSync(['docker', 'exec', id, 'id', '-u'], { stdout: 'pipe' }).stdout.toString().trim()).not.toBe('0');
    } finally {
      Bun.spawnSync(['docker', 'rm', '-f', id]);
      Bun.spawnSync(['docker', 'rmi', '-f', tag]);
    }
  }, 600_000);
});
