import { StreamableHTTPTransport } from '@hono/mcp';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Context, Hono } from 'hono';
import type { AppEnv, Caller } from '../deps';
import { TOOLS, type ToolSpec } from './tools';

type JsonSchema = Record<string, unknown>;
interface Operation {
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema?: JsonSchema }[];
}
type OpenApiDocument = { paths?: Record<string, { get?: Operation }> };

/** What a tool may not set: the transport decides the format, and keys travel in headers. */
const HIDDEN_PARAMETERS = new Set(['format', 'api_key']);

/** The MCP name and version of the server. */
const MCP_SERVER_INFO = { name: 'signal-intel', version: '1.0.0' };

/**
 * A tool's input schema, taken from the parameters of the operation it calls in the OpenAPI
 * document, which the routes' zod schemas generate: one source of truth for names, types and
 * bounds, and a tool gains a filter the moment its route does.
 */
function toolInputSchema(document: OpenApiDocument, spec: ToolSpec): Tool['inputSchema'] {
  const operation = document.paths?.[spec.path]?.get;
  if (!operation) throw new Error(`MCP tool ${spec.name}: no GET ${spec.path} in the OpenAPI document`);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const parameter of operation.parameters ?? []) {
    if (HIDDEN_PARAMETERS.has(parameter.name) || parameter.in === 'header') continue;
    properties[parameter.name] = {
      ...parameter.schema,
      ...(parameter.description ? { description: parameter.description } : {}),
    };
    if (parameter.required) required.push(parameter.name);
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}

/** A tool argument or a field of an answer as text: scalars as themselves, anything else as JSON. */
const asText = (value: unknown): string =>
  typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);

/** `/api/v1/signals/{id}` with `{ id }` filled in, the other arguments as the query string. */
function toolRequestPath(spec: ToolSpec, args: Record<string, unknown>): string {
  const query = new URLSearchParams();
  let path = spec.path;
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined || value === null || HIDDEN_PARAMETERS.has(name)) continue;
    const text = Array.isArray(value) ? value.map(asText).join(',') : asText(value);
    if (path.includes(`{${name}}`)) path = path.replace(`{${name}}`, encodeURIComponent(text));
    else query.set(name, text);
  }
  const search = query.toString();
  return search ? `${path}?${search}` : path;
}

interface Problem {
  title?: string;
  detail?: string;
  errors?: { path: string; message: string }[];
}

/** A short text rendering of an answer; the JSON itself goes in `structuredContent`. */
function renderText(spec: ToolSpec, body: Record<string, unknown>): string {
  const rows = Array.isArray(body.data) ? (body.data as Record<string, unknown>[]) : null;
  if (!rows) {
    const text = JSON.stringify(body);
    return text.length > 4000 ? `${text.slice(0, 4000)}… (truncated; see structuredContent)` : text;
  }
  const lines = rows.slice(0, 20).map((row) => {
    const label = row.title ?? row.name ?? row.region ?? row.id;
    const score = row.significance_score ?? row.score ?? row.severity;
    const extra = [row.threat_layer, (row.country_codes as string[] | undefined)?.join('/'), row.published_at]
      .filter(Boolean)
      .join(', ');
    return `- ${asText(label)}${score !== undefined ? ` [${asText(score)}]` : ''}${extra ? ` (${extra})` : ''}${row.id && label !== row.id ? ` id=${asText(row.id)}` : ''}`;
  });
  const more = rows.length > 20 ? [`… and ${rows.length - 20} more in structuredContent`] : [];
  const page = body.pagination as { next_cursor?: string | null } | undefined;
  const next = page?.next_cursor ? [`next cursor: ${page.next_cursor}`] : [];
  return [`${spec.name}: ${rows.length} result(s)`, ...lines, ...more, ...next].join('\n');
}

function problemResult(status: number, problem: Problem): CallToolResult {
  const details = (problem.errors ?? []).map((error) => `${error.path}: ${error.message}`);
  const text = [`${status} ${problem.title ?? 'Error'}: ${problem.detail ?? ''}`.trim(), ...details].join(
    '\n',
  );
  return { isError: true, content: [{ type: 'text', text }] };
}

/**
 * The MCP endpoint's handler. Stateless Streamable HTTP with JSON answers: each POST gets a
 * fresh server, and each tool call is answered by the route it names, requested inside the
 * app on behalf of the caller the endpoint already authenticated and counted, so a tool
 * returns exactly what the HTTP API returns, with the same validation, caching and errors.
 */
export function mcpHandler(app: Hono<AppEnv>, openApiDocument: () => object) {
  return async (c: Context<AppEnv>, body: unknown): Promise<Response> => {
    const caller = c.get('caller') as Caller;
    const server = new Server(MCP_SERVER_INFO, {
      capabilities: { tools: {} },
      instructions:
        'Scored intelligence signals (military, cyber, economic, disaster, political, criminal, health, supply chain). Start with search_signals or get_brief; use ids from results with get_signal.',
    });
    server.setRequestHandler(ListToolsRequestSchema, () => {
      const document = openApiDocument() as OpenApiDocument;
      return {
        tools: TOOLS.map((spec) => ({
          name: spec.name,
          title: spec.title,
          description: spec.description,
          inputSchema: toolInputSchema(document, spec),
          annotations: { readOnlyHint: true, openWorldHint: false },
        })),
      };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
      const spec = TOOLS.find((tool) => tool.name === request.params.name);
      if (!spec) return problemResult(404, { title: 'Unknown tool', detail: request.params.name });
      const path = toolRequestPath(spec, request.params.arguments ?? {});
      const response = await app.request(
        path,
        { headers: { accept: 'application/json', 'x-request-id': c.get('requestId') } },
        { ...c.env, internalCaller: caller },
      );
      const body = await response.json<Record<string, unknown>>();
      if (!response.ok) return problemResult(response.status, body);
      return { content: [{ type: 'text', text: renderText(spec, body) }], structuredContent: body };
    });
    const transport = new StreamableHTTPTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return (await transport.handleRequest(c, body)) ?? c.body(null, 202);
    } finally {
      await server.close();
    }
  };
}
