// The client program of docs/agents-and-client.md, kept here so tsc checks it against the generated types.
// Run it: KEY=sig_… npx tsx test/client/example.ts
import { createSignalClient } from '@signal-intel/client';

const api = createSignalClient({ baseUrl: 'http://127.0.0.1:8787', apiKey: process.env.KEY });
let count = 0;
for await (const s of api.signals({ layers: 'cyber', min_score: 8, limit: 100 })) {
  if (count++ < 3) console.log(s.significance_score, s.country_codes.join('/'), s.title);
}
console.log(`${count} cyber signals scored 8 or more`);
const { data: stats } = await api.GET('/api/v1/stats');
console.log(`${stats?.signals.total} signals in all`);
