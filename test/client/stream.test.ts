import { describe, expect, it } from 'vitest';
import { createSignalClient, type StreamChange } from '@signal-intel/client';
import { readEventStream } from '../../packages/client/src/stream';
import { admin, json, withTestApp } from '../support/harness';

let serial = 0;
const item = () => {
  serial += 1;
  return {
    threat_layer: 'health',
    significance_score: 4,
    signal_valence: 'update',
    title: `Client stream ${serial} cq${serial}zk`,
    content_display: `Client stream report ${serial}.`,
    country_codes: ['KE'],
    lat: -40 + serial * 3,
    lng: -120 + serial * 9,
    published_at: new Date(Date.now() - serial * 6 * 86_400_000).toISOString(),
    source_url: `https://client-stream.example.com/${serial}`,
    source: { name: `Client Stream Wire ${serial}` },
  };
};

describe('client.stream()', () => {
  // Streams end every 300 ms, so the iterator has to resume by itself several times.
  const suite = withTestApp({ key: 'pro', config: { STREAM_MAX_LIFETIME_MS: 300, STREAM_RETRY_MS: 50 } });
  const ingest = async (items: unknown[]) =>
    expect((await suite.fetch('/api/v1/admin/signals', admin(json(items)))).status).toBe(200);

  it('yields every change once, in order, across the server ending the stream', async () => {
    const api = createSignalClient({ baseUrl: suite.url, apiKey: suite.key });
    const stop = new AbortController();
    const seen: StreamChange[] = [];
    const changes = api.stream({ layers: 'health' }, { signal: stop.signal });
    const first = changes.next();
    // Until the stream is surely open, markers go in; the first one it yields is the start.
    let marker: IteratorResult<StreamChange> | undefined;
    void first.then((r) => (marker = r));
    while (!marker) {
      await ingest([item()]);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    seen.push(marker.value as StreamChange);
    const batches = [[item(), item()], [item()], [item(), item(), item()]];
    const reading = (async () => {
      for await (const change of changes) {
        seen.push(change);
        if (batches.flat().every((i) => seen.some((c) => c.data.source_url === i.source_url))) break;
      }
    })();
    for (const batch of batches) {
      await ingest(batch);
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
    await reading;
    stop.abort();
    const ids = seen.map((change) => change.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(seen.every((change) => change.event === 'signal')).toBe(true);
    const urls = seen.map((change) => change.data.source_url);
    const start = urls.indexOf(batches[0]![0]!.source_url);
    expect(start).toBeGreaterThan(0);
  });

  it('parses the event stream format: multi-line data, CRLF, comments and retry', async () => {
    const text = ': hi\r\nretry: 250\r\n\r\nid: a\nevent: signal\ndata: {"x":\ndata: 1}\n\n: beat\n\n';
    const body = new Blob([text]).stream();
    const events = [];
    for await (const event of readEventStream(body)) events.push(event);
    expect(events).toEqual([
      { event: 'message', data: '', retry: 250 },
      { id: 'a', event: 'signal', data: '{"x":\n1}' },
    ]);
  });
});
