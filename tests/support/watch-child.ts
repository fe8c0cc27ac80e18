// A gateway process for the kill -9 test: the real services on a given SQLite file, recording the
// activities of a JSON file through the sink (as the ingester would) and delivering webhooks, until
// it is killed. Prints "recorded <n>" after each activity.
import { readFileSync } from 'node:fs';
import { defaultConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import { createServices } from '../../src/services.ts';
import type { Activity } from '../../src/watch/sink.ts';

const [configJson, activitiesFile, wallet] = process.argv.slice(2) as [string, string, string];
const config: Config = { ...defaultConfig(), ...(JSON.parse(configJson) as Partial<Config>) };
const services = await createServices(config, createLogger('warn', [], (line) => process.stderr.write(line + '\n'), 'text'));
const activities = JSON.parse(readFileSync(activitiesFile, 'utf8')) as Activity[];
for (const [i, a] of activities.entries()) {
  await services.watches.recordActivity('mainnet-beta', wallet, a);
  process.stdout.write(`recorded ${i + 1}\n`);
}
await new Promise(() => {});
