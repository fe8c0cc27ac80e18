// The recorded mainnet getTransaction results under tests/fixtures/mainnet (sources in its SOURCES.md).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseJson } from '../../src/json';

export const RECORDED_ROOT = join(import.meta.dir, '../fixtures/mainnet');
const DIRS = ['getTransaction', 'getTransaction-jsonParsed'] as const;

/** Every recorded transaction, as "<dir>/<file>.json". */
export const recordedTransactionFiles: readonly string[] = DIRS.flatMap((dir) =>
  readdirSync(join(RECORDED_ROOT, dir))
    .filter((f) => f.endsWith('.json'))
    .map((f) => `${dir}/${f}`),
);

/** One recorded getTransaction result, parsed as the gateway parses upstream answers. */
export async function loadRecorded(file: string): Promise<unknown> {
  return parseJson(await Bun.file(join(RECORDED_ROOT, file)).text());
}
