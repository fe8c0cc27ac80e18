// Preloaded by bunfig.toml: hooks here run once for the whole test run, after every file.
import { afterAll } from 'bun:test';
import { stopPostgres } from './postgres.ts';

afterAll(() => stopPostgres());
