import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PerformanceMeasure } from '../index.js';

export interface ServerTimingOptions {
  /** Only measures whose name starts with this. */
  prefix?: string;
  /** Only measures this accepts (a throw leaves the measure out, reported once as a warning). */
  filter?: (entry: PerformanceMeasure) => boolean;
  /** At most this many measures in a header (default 30). */
  maxEntries?: number;
  /** At most this many characters of header, `total` included (default 2048). */
  maxHeaderLength?: number;
  /** Remove the marks and measures the request made (only those) when it ends (default true). */
  clear?: boolean;
  /** The name of the whole request's metric (default 'total'), or false for none. */
  total?: string | false;
}

/** A (req, res, next) middleware writing the request's measures as a Server-Timing header. */
export interface ServerTimingMiddleware {
  (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void): void;
  /** Wraps a fetch-style handler (Bun.serve, Deno.serve, Hono, ...): the Response it resolves
   *  with gets the header (a copy of it when its headers are immutable). */
  fetch<A extends unknown[], R>(
    handler: (request: Request, ...rest: A) => R | Promise<R>,
  ): (request: Request, ...rest: A) => Promise<R>;
}

export function serverTiming(options?: ServerTimingOptions): ServerTimingMiddleware;
