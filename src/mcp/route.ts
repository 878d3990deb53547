import { createRoute, z } from '@hono/zod-openapi';
import type { Hono, MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { AppEnv } from '../deps';
import { access } from '../http/auth';
import { jsonBody } from '../http/body';
import { createRouter, errors, security } from '../http/openapi';
import { ApiError } from '../http/problem';
import { mcpHandler } from './server';

const JsonRpcMessage = z
  .object({ jsonrpc: z.literal('2.0') })
  .passthrough()
  .openapi('JsonRpcMessage', {
    description: 'A JSON-RPC 2.0 request, notification or response of the Model Context Protocol.',
    example: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
  });

/**
 * One message per POST. A JSON-RPC batch would run any number of tool calls, each an internal
 * request, on one count of the key's limit (a free key's 100 an hour became 100,000), and hold
 * the server and the database pool for as long as they take. MCP 2025-06-18 removed batching, so
 * clients of current revisions never send one.
 */
const refuseBatches: MiddlewareHandler = async (c, next) => {
  if (Array.isArray(await c.req.json())) {
    throw new ApiError(
      400,
      'invalid_request',
      'Send one JSON-RPC message per request: batches (JSON arrays) are not accepted, as in MCP 2025-06-18 and later.',
      [{ path: 'body', message: 'must be one JSON-RPC message, not an array' }],
    );
  }
  await next();
};

/**
 * The transport refuses a bad message (wrong Accept, unknown protocol version, a message that
 * is not JSON-RPC) by throwing a JSON-RPC error response without a message; this turns it into
 * our problem with the transport's own reason as its `detail`.
 */
async function transportProblem(error: HTTPException): Promise<ApiError> {
  let reason = '';
  try {
    const body = await error.getResponse().json<{ error?: { message?: unknown; data?: unknown } }>();
    const { message, data } = body.error ?? {};
    reason = [message, data].filter((part) => typeof part === 'string' && part).join(': ');
  } catch {
    // No JSON body: the status alone says what went wrong.
  }
  const detail = (reason || error.message || 'The message is not a valid MCP request.').slice(0, 500);
  return error.status === 415
    ? new ApiError(415, 'unsupported_media_type', detail)
    : new ApiError(400, 'invalid_request', detail, [{ path: 'body', message: detail }]);
}

const mcpRoute = createRoute({
  method: 'post',
  path: '/api/v1/mcp',
  tags: ['Agents'],
  summary: 'Model Context Protocol server',
  description:
    "MCP over Streamable HTTP, stateless, with JSON answers (no sessions, no server-sent events). Tools: search_signals, get_signal, get_trending, get_compound_crises, get_brief, get_entity, get_stats, list_sources; each answers exactly what its HTTP route answers (as `structuredContent`, plus a short text). Needs an API key. One JSON-RPC message per POST, so every tool call counts once against the key's limit: a JSON array (a JSON-RPC batch, which the MCP revision 2025-06-18 removed) is a 400. The body is at most 64 KiB.",
  security,
  middleware: [access('key'), jsonBody(), refuseBatches] as const,
  request: {
    body: { required: true, content: { 'application/json': { schema: JsonRpcMessage } } },
  },
  responses: {
    200: {
      description: 'The JSON-RPC answer(s).',
      content: { 'application/json': { schema: JsonRpcMessage } },
    },
    202: {
      description: 'A notification or response was accepted; nothing to answer (the body is JSON `null`).',
      content: { 'application/json': { schema: z.null() } },
    },
    ...errors(400, 401, 413, 415, 429, 503),
  },
});

/** `POST /api/v1/mcp`, answering tool calls through `app`'s own routes. */
export function mcpRoutes(app: Hono<AppEnv>, openApiDocument: () => object) {
  let document: object | undefined;
  // The document is fixed once the app is built; generating it costs more than a tool call.
  const handle = mcpHandler(app, () => (document ??= openApiDocument()));
  return createRouter().openapi(mcpRoute, async (c) => {
    try {
      return (await handle(c, c.req.valid('json'))) as never;
    } catch (error) {
      if (error instanceof HTTPException) throw await transportProblem(error);
      throw error;
    }
  });
}
