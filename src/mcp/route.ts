import { createRoute, z } from '@hono/zod-openapi';
import type { Hono } from 'hono';
import type { AppEnv } from '../deps';
import { access } from '../http/auth';
import { createRouter, errors, security } from '../http/openapi';
import { mcpHandler } from './server';

const JsonRpcMessage = z
  .object({ jsonrpc: z.literal('2.0') })
  .passthrough()
  .openapi('JsonRpcMessage', {
    description: 'A JSON-RPC 2.0 request, notification or response of the Model Context Protocol.',
    example: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
  });

const mcpRoute = createRoute({
  method: 'post',
  path: '/api/v1/mcp',
  tags: ['Agents'],
  summary: 'Model Context Protocol server',
  description:
    "MCP over Streamable HTTP, stateless, with JSON answers (no sessions, no server-sent events). Tools: search_signals, get_signal, get_trending, get_compound_crises, get_brief, get_entity, get_stats, list_sources; each answers exactly what its HTTP route answers (as `structuredContent`, plus a short text). Needs an API key; every POST counts once against the key's limit.",
  security,
  middleware: [access('key')] as const,
  request: {
    body: {
      required: true,
      content: { 'application/json': { schema: z.union([JsonRpcMessage, z.array(JsonRpcMessage)]) } },
    },
  },
  responses: {
    200: {
      description: 'The JSON-RPC answer(s).',
      content: { 'application/json': { schema: z.union([JsonRpcMessage, z.array(JsonRpcMessage)]) } },
    },
    202: {
      description: 'A notification or response was accepted; nothing to answer (the body is JSON `null`).',
      content: { 'application/json': { schema: z.null() } },
    },
    ...errors(400, 401, 415, 429, 503),
  },
});

/** `POST /api/v1/mcp`, answering tool calls through `app`'s own routes. */
export function mcpRoutes(app: Hono<AppEnv>, openApiDocument: () => object) {
  let document: object | undefined;
  // The document is fixed once the app is built; generating it costs more than a tool call.
  const handle = mcpHandler(app, () => (document ??= openApiDocument()));
  return createRouter().openapi(mcpRoute, (c) => handle(c, c.req.valid('json')) as never);
}
