// What the access log learns about a request while it runs, without passing it down every call:
// the HTTP wrapper opens a context, the upstream client counts its calls into it.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestContext {
  upstreamCalls: number;
}

const storage = new AsyncLocalStorage<RequestContext>();

export const withRequestContext = <T>(context: RequestContext, fn: () => T): T => storage.run(context, fn);

export const currentRequest = (): RequestContext | undefined => storage.getStore();
