import { describe, expect, it } from 'vitest';
import { withTestApp, seedFixtures } from '../support/harness';

type Json = Record<string, any>;

const call = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'get_stats', arguments: {} },
});

/** MCP answers through the same limits as every other keyed endpoint. */
describe('MCP limits', () => {
  const app = withTestApp({ seed: seedFixtures, key: 'free' });

  const post = (body: string, headers: Record<string, string> = {}) =>
    app.fetch('/api/v1/mcp', {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'X-Api-Key': app.key,
        ...headers,
      },
      body,
    });

  it('refuses a JSON-RPC batch with a 400 and runs none of its calls', async () => {
    const res = await post(JSON.stringify(Array.from({ length: 10 }, (_, i) => call(i))));
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    const body = await res.json<Json>();
    expect(body.code).toBe('invalid_request');
    expect(body.detail).toMatch(/one JSON-RPC message/);
    // A thousand calls do not even fit the body cap.
    const thousand = await post(JSON.stringify(Array.from({ length: 1000 }, (_, i) => call(i))));
    expect(thousand.status).toBe(413);
  });

  it('counts every tool call once against the key', async () => {
    const remaining: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await post(JSON.stringify(call(i)));
      expect(res.status).toBe(200);
      const body = await res.json<Json>();
      expect(body.result.structuredContent).toBeDefined();
      remaining.push(Number(res.headers.get('x-ratelimit-remaining')));
    }
    expect(remaining[1]).toBe(remaining[0]! - 1);
    expect(remaining[2]).toBe(remaining[0]! - 2);
  });

  it('caps the body at 64 KiB with a 413 problem', async () => {
    const big = JSON.stringify({
      ...call(1),
      params: { name: 'get_stats', arguments: { pad: 'x'.repeat(70_000) } },
    });
    const res = await post(big);
    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect((await res.json<Json>()).code).toBe('payload_too_large');
  });

  it.each([
    ['a body that is not JSON', '{"jsonrpc":', {}],
    ['an Accept the transport cannot answer', JSON.stringify(call(1)), { Accept: 'text/plain' }],
    ['an unknown protocol version', JSON.stringify(call(1)), { 'MCP-Protocol-Version': '1999-01-01' }],
    ['a message that is not JSON-RPC', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 42 }), {}],
  ] as const)('answers %s with a 400 whose detail says why', async (_, body, headers) => {
    const res = await post(body, headers);
    expect(res.status).toBe(400);
    const problem = await res.json<Json>();
    expect(problem.detail.trim().length).toBeGreaterThan(0);
  });
});
