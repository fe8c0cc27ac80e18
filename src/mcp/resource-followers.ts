// resources/subscribe on the sessions of the 2025 revisions (Streamable HTTP and legacy SSE): which
// session follows which resource, and the notifications/resources/updated each change sends on the
// session's own event stream (a session's SDK Server comes and goes, session-servers.ts, so the
// subscriptions live here). A Streamable HTTP session hears them on its GET stream while one is open.
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { McpSessions } from './sessions.ts';
import type { Followers } from './tools.ts';

/** Resources one session may follow at once. */
export const MAX_FOLLOWED = 64;

export class ResourceFollowers implements Followers {
  private readonly byUri = new Map<string, Set<string>>();
  private readonly bySession = new Map<string, Set<string>>();
  private readonly sweeper: ReturnType<typeof setInterval>;

  constructor(
    private readonly sessions: McpSessions,
    changes: (cb: (uri: string) => void) => () => void,
  ) {
    changes((uri) => this.changed(uri));
    // A session that ended without unsubscribing is forgotten here within a minute.
    this.sweeper = setInterval(() => {
      for (const id of this.bySession.keys()) if (!this.sessions.get(id)) this.drop(id);
    }, 60_000);
    this.sweeper.unref?.();
  }

  follow(sessionId: string | undefined, uri: string): void {
    if (!sessionId || !this.sessions.get(sessionId)) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, 'resources/subscribe needs a session (on 2026-07-28, use subscriptions/listen)');
    const mine = this.bySession.get(sessionId) ?? new Set<string>();
    if (!mine.has(uri) && mine.size >= MAX_FOLLOWED) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `A session follows at most ${MAX_FOLLOWED} resources; unsubscribe from one first`);
    this.bySession.set(sessionId, mine.add(uri));
    this.byUri.set(uri, (this.byUri.get(uri) ?? new Set()).add(sessionId));
  }

  unfollow(sessionId: string | undefined, uri: string): void {
    if (!sessionId) return;
    this.bySession.get(sessionId)?.delete(uri);
    this.byUri.get(uri)?.delete(sessionId);
  }

  private drop(sessionId: string) {
    for (const uri of this.bySession.get(sessionId) ?? []) this.byUri.get(uri)?.delete(sessionId);
    this.bySession.delete(sessionId);
  }

  private changed(uri: string) {
    const followers = this.byUri.get(uri);
    if (!followers) return;
    const note = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } });
    for (const id of followers) {
      const session = this.sessions.get(id);
      if (!session) this.drop(id);
      else session.stream?.sendJson(note);
    }
    if (followers.size === 0) this.byUri.delete(uri);
  }
}
