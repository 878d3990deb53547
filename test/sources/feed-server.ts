/**
 * A feed host on loopback (a real socket) for poller tests: each path answers as a route says,
 * a fixture document with validators (and 304 when the client presents them), an error status,
 * a redirect, a body too large, or an answer that comes too late. Every request is kept.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fixture } from './support';

export type Route =
  | { document: string | Buffer; type: string; etag?: string; lastModified?: string }
  | { status: number; headers?: Record<string, string>; body?: string }
  | { redirect: string }
  /** Headers only after `ms`: past the poll timeout. */
  | { slowMs: number };

export interface FeedServer {
  url: string;
  requests: { path: string; headers: IncomingHttpHeaders }[];
  /** Replaces (or adds) the route of a path. */
  route(path: string, route: Route): void;
  close(): Promise<void>;
}

export async function startFeedServer(routes: Record<string, Route> = {}): Promise<FeedServer> {
  const table = new Map(Object.entries(routes));
  const requests: FeedServer['requests'] = [];
  const timers = new Set<NodeJS.Timeout>();
  const answer = (res: ServerResponse, route: Route | undefined, headers: IncomingHttpHeaders) => {
    if (!route) return res.writeHead(404).end();
    if ('document' in route) {
      const validators: Record<string, string> = {};
      if (route.etag) validators.ETag = route.etag;
      if (route.lastModified) validators['Last-Modified'] = route.lastModified;
      const fresh =
        (route.etag && headers['if-none-match'] === route.etag) ||
        (!route.etag && route.lastModified && headers['if-modified-since'] === route.lastModified);
      if (fresh) return res.writeHead(304, validators).end();
      return res.writeHead(200, { 'Content-Type': route.type, ...validators }).end(route.document);
    }
    if ('redirect' in route) return res.writeHead(301, { Location: route.redirect }).end();
    if ('slowMs' in route) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      }, route.slowMs);
      timers.add(timer);
      return;
    }
    res.writeHead(route.status, route.headers).end(route.body ?? '');
  };
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    requests.push({ path, headers: req.headers });
    req.resume();
    req.on('end', () => answer(res, table.get(path.split('?')[0]!), req.headers));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    route: (path, route) => void table.set(path, route),
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * The USGS fixture as if generated at `at`: every time moved by the same offset, so a
 * test on the real clock (the dispatcher's and the database's) sees it as fresh.
 */
export function usgsAsOf(document: string, at: Date): string {
  const feed = JSON.parse(document) as {
    metadata: { generated: number };
    features: { properties: { time: number; updated: number } }[];
  };
  const shift = at.getTime() - feed.metadata.generated;
  feed.metadata.generated += shift;
  for (const { properties } of feed.features) {
    properties.time += shift;
    properties.updated += shift;
  }
  return JSON.stringify(feed);
}

/** The USGS fixture, its events moved to now, served as a GeoJSON feed with `etag`. */
export const liveQuakes = (etag = '"quakes-1"'): Route => ({
  document: usgsAsOf(fixture('usgs.geojson'), new Date()),
  type: 'application/geo+json',
  etag,
});
