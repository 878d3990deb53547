/**
 * One JSON answer from an OpenAI-compatible chat-completions endpoint (the watch brief and the
 * news grader use it): a system and a user message, `response_format: json_object`, a time limit
 * and a cap on the bytes read. Throws on timeout, HTTP error, no message content or text that is
 * not JSON; the caller validates the shape and keeps its own fallback.
 */
import type { Config } from '../config';
import type { OutboundFetch } from './outbound';

export interface ChatEndpoint {
  url: string;
  apiKey?: string;
  model?: string;
}

/** The LLM the configuration names (`BRIEF_LLM_*`: the brief and the news grader share it), or none. */
export function configuredChat(
  config: Pick<Config, 'BRIEF_LLM_URL' | 'BRIEF_LLM_API_KEY' | 'BRIEF_LLM_MODEL'>,
): ChatEndpoint | undefined {
  if (!config.BRIEF_LLM_URL) return undefined;
  return { url: config.BRIEF_LLM_URL, apiKey: config.BRIEF_LLM_API_KEY, model: config.BRIEF_LLM_MODEL };
}

/** The model asked when the configuration names none. */
export const DEFAULT_MODEL = 'gpt-4o-mini';

/** The chat-completions endpoint: the configured URL, or `<url>/chat/completions` for a base URL. */
const completionsUrl = (url: string) =>
  /\/chat\/completions\/?$/.test(url) ? url : `${url.replace(/\/+$/, '')}/chat/completions`;

export async function askJson(
  fetcher: OutboundFetch,
  endpoint: ChatEndpoint,
  ask: { system: string; user: string; temperature: number; timeoutMs: number; maxBytes: number },
): Promise<unknown> {
  const response = await fetcher(completionsUrl(endpoint.url), {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      ...(endpoint.apiKey ? { Authorization: `Bearer ${endpoint.apiKey}` } : {}),
    },
    body: JSON.stringify({
      model: endpoint.model ?? DEFAULT_MODEL,
      temperature: ask.temperature,
      response_format: { type: 'json_object' },
      messages: [
        { role: 'system', content: ask.system },
        { role: 'user', content: ask.user },
      ],
    }),
    redirect: 'manual',
    timeoutMs: ask.timeoutMs,
    maxBodyBytes: ask.maxBytes,
    signal: AbortSignal.timeout(ask.timeoutMs),
  });
  if (!response.ok) throw new Error(`LLM answered HTTP ${response.status}`);
  const completion = await response.json<{ choices?: { message?: { content?: unknown } }[] }>();
  const content = completion.choices?.[0]?.message?.content;
  if (typeof content !== 'string') throw new Error('LLM answer has no message content');
  // Models sometimes fence the object in a Markdown code block despite response_format.
  return JSON.parse(content.replace(/^\s*```(?:json)?\s*|\s*```\s*$/g, ''));
}
