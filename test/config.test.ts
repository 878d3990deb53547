import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config';

describe('config', () => {
  it('has working defaults with an empty environment', () => {
    expect(loadConfig({})).toMatchObject({
      PORT: 8787,
      DATA_DIR: '.data',
      SEED: true,
      TRUST_PROXY: false,
      WEBHOOK_ALLOW_INSECURE: false,
    });
  });

  it('names every bad variable in one error', () => {
    try {
      loadConfig({
        PORT: 'eighty',
        DATABASE_URL: 'mysql://x',
        TRUST_PROXY: 'yes',
        UPSTASH_REDIS_REST_URL: 'https://x.upstash.io',
      });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const problems = (error as ConfigError).problems.join('\n');
      for (const name of ['PORT', 'DATABASE_URL', 'TRUST_PROXY', 'UPSTASH_REDIS_REST_TOKEN'])
        expect(problems).toContain(name);
    }
  });

  it('treats empty strings as unset', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: '' }).DATABASE_URL).toBeUndefined();
  });
});
