// A documented walkthrough, run as written: the shell blocks between a page's markers, in a fresh
// clone (clone.ts). A block a person leaves running in a terminal (the sandbox, the gateway) starts
// in its own process group; the others run to the end. The only change is where the servers
// listen, so a test binds no fixed port: SANDBOX_PORT, PORT and HOST=127.0.0.1 in the environment,
// and the same numbers in place of 8899 and 3000 in the blocks.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freshClone, shellEnv, until, type Clone, type Terminal } from './clone.ts';
import { sandboxPorts } from './process.ts';

export const ROOT = join(import.meta.dir, '../..');

/** The shell blocks between `<!-- marker:begin -->` and `<!-- marker:end -->` of a page of the repository. */
export function docBlocks(page: string, marker: string): string[] {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const section = text.match(new RegExp(`<!-- ${marker}:begin -->([\\s\\S]*?)<!-- ${marker}:end -->`));
  if (!section) throw new Error(`${page} has no ${marker}:begin / ${marker}:end markers`);
  return [...section[1]!.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** The fresh clone a walkthrough runs in and its ports; every block sees the same terminal environment. */
export class Walkthrough {
  private readonly clone: Clone = freshClone();
  readonly dir = this.clone.dir;
  private readonly ports = sandboxPorts();
  readonly sandboxPort = String(this.ports.sandbox);
  readonly gatewayPort = String(this.ports.gateway);
  readonly env = shellEnv({ SANDBOX_PORT: this.sandboxPort, PORT: this.gatewayPort, HOST: '127.0.0.1' });

  get gatewayUrl(): string {
    return `http://127.0.0.1:${this.gatewayPort}`;
  }

  /** A block with the test's ports in place of the documented ones. */
  localize(block: string): string {
    return block.replace(/\b8899\b/g, this.sandboxPort).replace(/\b3000\b/g, this.gatewayPort);
  }

  /** A block left running, as in a terminal of its own. */
  start(block: string): Terminal {
    return this.clone.start(this.localize(block), this.env);
  }

  /** `bun run sandbox`'s block, once the chain says it is up. */
  async startSandbox(block: string): Promise<Terminal> {
    const chain = this.start(block);
    await until('the sandbox start', () => chain.text().includes('Ctrl-C to stop'), 30_000, chain.text);
    return chain;
  }

  /** The gateway's block, once it answers /healthz; a gateway that refuses to start fails at once, with what it said. */
  async startGateway(block: string): Promise<Terminal> {
    const gw = this.start(block);
    const up = () => {
      if (gw.proc.exitCode !== null) throw new Error(`the gateway exited (${gw.proc.exitCode}):\n${gw.text()}`);
      return fetch(this.gatewayUrl + '/healthz').then((r) => r.ok, () => false);
    };
    await until('the gateway start', up, 30_000, gw.text);
    return gw;
  }

  /** Blocks run as one script that stops at the first failing command. */
  run(blocks: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
    return this.clone.run(blocks.map((b) => this.localize(b)).join('\n'), this.env);
  }

  /** A running block stops with its process group: `bun run` and the script it starts together. */
  stop(t: Terminal): Promise<void> {
    return this.clone.stop(t);
  }

  close(): Promise<void> {
    return this.clone.remove();
  }
}
