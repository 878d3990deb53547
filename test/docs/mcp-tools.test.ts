import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/mcp/tools';

/** The `| \`tool\` | \`GET /path\` … |` rows of the MCP table in the agents guide, in order. */
function documentedTools(markdown: string): { name: string; path: string }[] {
  return [...markdown.matchAll(/^\| `([a-z_]+)` +\| `GET ([^`]+)`/gm)].map((m) => ({
    name: m[1]!,
    path: m[2]!,
  }));
}

describe('the MCP tool table of docs/agents-and-client.md', () => {
  const guide = readFileSync(new URL('../../docs/agents-and-client.md', import.meta.url), 'utf8');

  it('lists every tool of src/mcp/tools.ts with its route, in order, and no other', () => {
    expect(documentedTools(guide)).toEqual(TOOLS.map(({ name, path }) => ({ name, path })));
  });

  it('would notice a missing row', () => {
    const withoutOne = guide.replace(/^\| `get_event` .*\n/m, '');
    expect(documentedTools(withoutOne)).not.toEqual(TOOLS.map(({ name, path }) => ({ name, path })));
  });
});
