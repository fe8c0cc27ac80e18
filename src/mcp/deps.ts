// What the MCP face reads from the gateway it serves: the call pipeline's parts, the settings and
// the table of open sessions. Declared here, so the face knows no entry: the Services the entry
// builds fits it as it is.
import type { CallDeps } from '../calls/pipeline.ts';
import type { Config } from '../config.ts';
import type { McpSessions } from './sessions.ts';
import type { ExtraTools } from './tools.ts';

export interface McpDeps extends CallDeps {
  config: Config;
  mcp: McpSessions;
  /** Tools beyond the capabilities' (the watches'). */
  extraTools?: ExtraTools;
}
