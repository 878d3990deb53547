import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LookupAddress } from 'node:dns';
import { isPublicAddress } from '../../src/net/address';
import { OutboundError, workerOutboundFetch } from '../../src/net/outbound';
import { nodeOutboundFetch, type Resolver } from '../../src/net/outbound-node';
import { urlProblem } from '../../src/webhooks/guard';
import { startReceiver, type Receiver } from '../webhooks/receiver';

/** A DNS server in a function: answers each name from `zone`, NXDOMAIN otherwise. */
const zone =
  (records: Record<string, string[]>): Resolver =>
  async (hostname) => {
    const answers = records[hostname];
    if (!answers) throw Object.assign(new Error(`queryA ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return answers.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

const kindOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
    return 'connected';
  } catch (error) {
    return error instanceof OutboundError ? error.kind : `raw: ${String(error)}`;
  }
};

describe('outbound address ranges (ipaddr.js), IPv4 and IPv6', () => {
  it.each([
    '0.0.0.0',
    '10.1.2.3',
    '100.64.0.1', // CGNAT
    '127.0.0.1',
    '169.254.169.254',
    '172.16.5.4',
    '192.0.0.8',
    '192.0.2.10', // documentation
    '192.168.1.1',
    '198.18.0.1', // benchmarking
    '198.51.100.7',
    '203.0.113.9',
    '224.0.0.1',
    '240.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '::ffff:127.0.0.1', // IPv4-mapped
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::127.0.0.1', // IPv4-compatible
    '::ffff:0:7f00:1', // ::ffff:0:0:0/96 (SIIT)
    '64:ff9b::a9fe:a9fe', // NAT64
    '100::1', // discard 100::/64
    '2001::1', // Teredo 2001::/32
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '2002:7f00:1::1', // 6to4 2002::/16
    '2001:db8::1', // documentation
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'fec0::1', // site-local fec0::/10
    'ff02::1',
    'not an address',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '93.184.216.34', '2606:4700:4700::1111', '2a00:1450:4001:82a::200e', '::ffff:8.8.8.8'])(
    'accepts the public %s',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );

  it.each(['2001::1', '2002:7f00:1::1', 'fec0::1', '100::1', '::ffff:0:7f00:1', '2001:db8::1'])(
    'refuses a webhook URL on the literal [%s]',
    (address) => {
      expect(urlProblem(`https://[${address}]/hook`, false)).toMatch(/private/);
    },
  );
});

describe('webhook names that only resolve inside a network', () => {
  it.each(['https://kubernetes.default.svc/', 'https://api.cluster.local/', 'https://localtest.localhost/'])(
    'refuses %s at registration',
    (url) => {
      expect(urlProblem(url, false)).toMatch(/public host/);
    },
  );
});

describe('the Node outbound fetch checks the address it connects to', () => {
  let receiver: Receiver;
  let port: number;
  beforeAll(async () => {
    receiver = await startReceiver();
    port = Number(new URL(receiver.url).port);
  });
  afterAll(() => receiver.close());

  it('refuses `localhost` at connect time, through the system resolver', async () => {
    const guarded = nodeOutboundFetch();
    // The webhook policy is not in play here: this is the fetch every outbound request uses.
    expect(await kindOf(guarded(`http://localhost:${port}/hook`, { method: 'POST', body: '{}' }))).toBe(
      'blocked_address',
    );
    expect(receiver.received).toHaveLength(0);
  });

  it('refuses a public-looking name whose answer is loopback, private or mapped', async () => {
    const guarded = nodeOutboundFetch({
      resolve: zone({
        'rebind.example.com': ['127.0.0.1'],
        'intranet.example.com': ['10.0.0.7'],
        'mapped.example.com': ['::ffff:127.0.0.1'],
        'mixed.example.com': ['93.184.216.34', '127.0.0.1'],
      }),
    });
    for (const name of ['rebind', 'intranet', 'mapped', 'mixed']) {
      expect(await kindOf(guarded(`http://${name}.example.com:${port}/hook`))).toBe('blocked_address');
    }
    expect(receiver.received).toHaveLength(0);
  });

  it('refuses private IP literals before connecting, in every spelling', async () => {
    const guarded = nodeOutboundFetch();
    for (const host of ['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]', '2130706433']) {
      expect(await kindOf(guarded(`http://${host}:${port}/hook`))).toBe('blocked_address');
    }
    expect(receiver.received).toHaveLength(0);
  });

  it('connects to exactly the address it resolved (the guard lifted shows the same name lands)', async () => {
    const open = nodeOutboundFetch({
      allowPrivate: true,
      resolve: zone({ 'rebind.example.com': ['127.0.0.1'] }),
    });
    const response = await open(`http://rebind.example.com:${port}/hook`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(200);
    expect(receiver.received.at(-1)?.headers.host).toBe(`rebind.example.com:${port}`);
  });
});

describe('the Workers outbound fetch keeps the literal checks', () => {
  it('refuses private literals without calling the platform fetch', async () => {
    const called: string[] = [];
    const platform = (async (input: RequestInfo | URL) => {
      called.push(input instanceof Request ? input.url : input.toString());
      return new Response('ok');
    }) as typeof fetch;
    const worker = workerOutboundFetch({ fetch: platform });
    for (const url of [
      'https://127.0.0.1/',
      'https://[::ffff:a9fe:a9fe]/',
      'https://[2002:7f00:1::1]/',
      'https://[fec0::1]/',
    ]) {
      expect(await kindOf(worker(url))).toBe('blocked_address');
    }
    expect(called).toEqual([]);
    expect((await worker('https://hooks.example.com/')).status).toBe(200);
    expect(called).toEqual(['https://hooks.example.com/']);
  });
});
