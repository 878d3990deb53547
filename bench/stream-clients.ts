/**
 * The 2,000 clients of the stream bench (bench/stream.ts), in a process of their own so neither
 * the server nor the ingest driver shares their event loop. Every stream counts its events from
 * the bytes (no decoding); one stream in `BENCH_SAMPLE` (20) also reads each event's `updated_at`
 * and when it arrived, for the latency. Messages: `{open: keys}` → `opened`; `report` → counts.
 */
import http from 'node:http';

const SAMPLE = Number(process.env.BENCH_SAMPLE ?? 20);
const url = new URL(process.env.BENCH_URL!);
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
const requests: http.ClientRequest[] = [];
const received: [number, number][] = [];
let delivered = 0;
let measuring = false;
const EVENT = Buffer.from('\nevent: ');
const UPDATED = '"updated_at":"';

function openStream(key: string, sampled: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      {
        hostname: url.hostname,
        port: url.port,
        path: '/api/v1/stream',
        agent,
        headers: { 'X-Api-Key': key, Accept: 'text/event-stream' },
      },
      (response) => {
        if (response.statusCode !== 200) return reject(new Error(`stream answered ${response.statusCode}`));
        let carry = '';
        // A stream the server ends (or resets) is counted as it stands; the bench reports the shortfall.
        response.on('error', (error) => console.error(`stream error: ${error.message}`));
        response.on('data', (chunk: Buffer) => {
          if (!measuring) return;
          // An event is never split before its "\nevent: " line on loopback writes of one frame.
          for (let at = chunk.indexOf(EVENT); at >= 0; at = chunk.indexOf(EVENT, at + 1)) delivered += 1;
          if (!sampled) return;
          const now = Date.now();
          const text = carry + chunk.toString('utf8');
          let at = 0;
          for (;;) {
            const found = text.indexOf(UPDATED, at);
            if (found < 0) break;
            const end = text.indexOf('"', found + UPDATED.length);
            if (end < 0) break;
            received.push([Date.parse(text.slice(found + UPDATED.length, end)), now]);
            at = end;
          }
          carry = text.slice(Math.max(at, text.length - 64));
        });
        resolve();
      },
    );
    request.on('error', (error) => {
      console.error(`stream request error: ${error.message}`);
      reject(error);
    });
    requests.push(request);
  });
}

process.on(
  'message',
  (message: { open?: string[]; measure?: boolean; report?: boolean }) => void onMessage(message),
);

async function onMessage(message: { open?: string[]; measure?: boolean; report?: boolean }) {
  if (message.open) {
    const keys = message.open;
    for (let i = 0; i < keys.length; i += 50) {
      await Promise.all(keys.slice(i, i + 50).map((key, j) => openStream(key, (i + j) % SAMPLE === 0)));
    }
    process.send!({ opened: keys.length });
  }
  if (message.measure) measuring = true;
  if (message.report) {
    // Exit only once the (large) report has left: send is asynchronous.
    process.send!({ delivered, received }, () => {
      for (const request of requests) request.destroy();
      process.exit(0);
    });
  }
}
