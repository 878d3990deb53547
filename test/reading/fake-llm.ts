import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the fake answers one chat completion with: an HTTP status and the message content. */
export type Reply = (body: { temperature: number; messages: { content: string }[] }) => {
  status: number;
  content: string;
};

/**
 * A loopback OpenAI-compatible chat-completions server (a real node:http server on 127.0.0.1):
 * answers with `reply` and records each request's user message in `asked`.
 */
export async function startFakeLlm(reply: { current: Reply }): Promise<{
  url: string;
  asked: string[];
  close: () => Promise<void>;
}> {
  const asked: string[] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw) as { temperature: number; messages: { content: string }[] };
      asked.push(body.messages[1]!.content);
      const { status, content } = reply.current(body);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    asked,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
