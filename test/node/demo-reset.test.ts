import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config';
import { resetDemoDatabase } from '../../src/node-runtime';

describe('npm run demo:reset (--reset-demo)', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const dataDir = () => {
    dir = mkdtempSync(join(tmpdir(), 'demo-reset-'));
    mkdirSync(join(dir, 'pglite'));
    writeFileSync(join(dir, 'pglite', 'PG_VERSION'), '17\n');
    writeFileSync(join(dir, 'demo-key'), 'sig_old\n');
    writeFileSync(join(dir, 'admin-token'), 'adm_kept\n');
    return dir;
  };

  it('drops the embedded demo database and its key, and keeps the admin token', () => {
    const config = loadConfig({ DATA_DIR: dataDir() });
    expect(resetDemoDatabase(config)).toBe(join(dir, 'pglite'));
    expect(readdirSync(dir)).toEqual(['admin-token']);
  });

  it('works on a data directory that has no database yet', () => {
    const config = loadConfig({ DATA_DIR: join(dataDir(), 'fresh') });
    expect(() => resetDemoDatabase(config)).not.toThrow();
  });

  it('refuses a real Postgres and the live database, and removes nothing', () => {
    const data = dataDir();
    for (const env of [
      { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' },
      { LIVE_SOURCES: 'true' },
    ]) {
      expect(() => resetDemoDatabase(loadConfig({ DATA_DIR: data, ...env }))).toThrow(ConfigError);
    }
    expect(existsSync(join(data, 'pglite', 'PG_VERSION'))).toBe(true);
    expect(existsSync(join(data, 'demo-key'))).toBe(true);
  });
});
