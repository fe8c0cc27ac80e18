// Every capability the gateway sells. Adding one is a new file and one line here; REST, MCP, the
// manifest and the OpenAPI document pick it up from this list.
import { balance } from './balance.ts';
import { blockhash } from './blockhash.ts';
import type { Capability } from './capability.ts';
import { findAta } from './find-ata.ts';

export const CAPABILITIES: readonly Capability[] = [balance, blockhash, findAta];
