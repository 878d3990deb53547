import { describe, expect, it } from 'vitest';
import { accepts, startServer, suiteDataDirs } from '../support/server-process';

// On Linux all of 127.0.0.0/8 is loopback: a server bound to 127.0.0.1 refuses 127.0.0.2, one
// bound to every interface accepts it, so the pair tells the two apart without another network.
describe('where npm start listens', () => {
  const dataDir = suiteDataDirs('listen-');

  it('binds 127.0.0.1 by default and says so', async () => {
    const output = await startServer({ DATA_DIR: dataDir() }, async ({ bound, port }) => {
      expect(bound).toBe(`127.0.0.1:${port}`);
      expect(await accepts('127.0.0.1', port)).toBe(true);
      expect(await accepts('127.0.0.2', port)).toBe(false);
    });
    expect(output).toMatch(/Base URL: +http:\/\/127\.0\.0\.1:\d+/);
  }, 120_000);

  it('binds every interface when HOST=0.0.0.0, and says so', async () => {
    const output = await startServer({ DATA_DIR: dataDir(), HOST: '0.0.0.0' }, async ({ bound, port }) => {
      expect(bound).toBe(`0.0.0.0:${port}`);
      expect(await accepts('127.0.0.2', port)).toBe(true);
    });
    expect(output).toContain('every interface');
    expect(output).toMatch(/Base URL: +http:\/\/localhost:\d+/);
  }, 120_000);

  it('refuses a HOST that is not an address', async () => {
    await expect(startServer({ DATA_DIR: dataDir(), HOST: 'http://example.org' })).rejects.toThrow(/HOST/);
  }, 60_000);
});
