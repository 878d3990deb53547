import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { sources } from '../../src/db/schema';
import { CATALOGUE } from '../../src/sources/catalogue';
import { seedCatalogue } from '../../src/sources/rows';
import { admin, backends, createKey, withTestApp } from '../support/harness';
import { fixture } from './support';

type Json = Record<string, any>;

describe.each(backends)('admin sources API on $name', (backend) => {
  // opening a database and a server is slow on a loaded machine
  const app = withTestApp({
    open: backend.open,
    seed: async (db) => {
      await seedCatalogue(db);
    },
    timeout: 180_000,
  });

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await app.fetch(
      path,
      admin({
        method,
        ...(body === undefined
          ? {}
          : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }),
      }),
    );
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as Json };
  };
  const reuters = {
    connector: 'rss',
    name: 'Example world news',
    url: 'https://news.example.org/world.rss',
    interval_minutes: 30,
  };

  it('lists the catalogue with settings and health', async () => {
    const { status, body } = await call('GET', '/api/v1/admin/sources');
    expect(status).toBe(200);
    expect(body.data).toHaveLength(CATALOGUE.length);
    const gdacs = (body.data as Json[]).find((s) => s.name === 'GDACS alerts');
    expect(gdacs).toMatchObject({
      connector: 'gdacs',
      url: 'https://www.gdacs.org/xml/rss.xml',
      tier: 'core',
      interval_minutes: 15,
      enabled: true,
      options: {},
      signal_count: 0,
      last_polled_at: null,
      last_success_at: null,
      last_error: null,
      consecutive_failures: 0,
      last_poll_items: null,
    });
    const relief = (body.data as Json[]).find((s) => s.connector === 'reliefweb');
    expect(relief?.enabled).toBe(false); // until the operator supplies an appname
    const usgs = await call('GET', '/api/v1/admin/sources?connector=usgs');
    expect((usgs.body.data as Json[]).map((s) => s.connector)).toEqual(['usgs', 'usgs']);
  });

  it('adds a source (community tier by default); a taken name is 409 source_exists', async () => {
    const created = await call('POST', '/api/v1/admin/sources', reuters);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ ...reuters, tier: 'community', enabled: true, options: {} });
    const again = await call('POST', '/api/v1/admin/sources', reuters);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'source_exists', title: 'Source already exists' });
    expect((await call('GET', `/api/v1/admin/sources/${created.body.id}`)).body.name).toBe(reuters.name);
  });

  it('rejects bad settings with 400 and changes nothing', async () => {
    const before = (await call('GET', '/api/v1/admin/sources')).body.data.length;
    for (const [body, path] of [
      [{ ...reuters, name: 'x1', connector: 'telegraph' }, 'connector'],
      [{ ...reuters, name: 'x2', url: 'ftp://news.example.org/' }, 'url'],
      [{ ...reuters, name: 'x3', tier: 'gold' }, 'tier'],
      [{ ...reuters, name: 'x4', interval_minutes: 0 }, 'interval_minutes'],
      [{ ...reuters, name: 'x5', surprise: true }, ''],
      // Enabled GDELT and ReliefWeb sources need what their request is built from.
      [{ connector: 'gdelt', name: 'x6', url: 'https://api.gdeltproject.org/api/v2/doc/doc' }, 'options'],
      [{ connector: 'reliefweb', name: 'x7', url: 'https://api.reliefweb.int/v2/reports' }, 'options'],
    ] as const) {
      const res = await call('POST', '/api/v1/admin/sources', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('invalid_request');
      if (path) expect(res.body.errors.map((e: Json) => e.path)).toContain(path);
    }
    expect((await call('GET', '/api/v1/admin/sources')).body.data).toHaveLength(before);
  });

  it('enables ReliefWeb once it has an appname; disables and renames', async () => {
    const relief = (await call('GET', '/api/v1/admin/sources?connector=reliefweb')).body.data[0] as Json;
    const refused = await call('PATCH', `/api/v1/admin/sources/${relief.id}`, { enabled: true });
    expect(refused.status).toBe(400);
    const enabled = await call('PATCH', `/api/v1/admin/sources/${relief.id}`, {
      enabled: true,
      options: { appname: 'signal-intel-test' },
    });
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ enabled: true, options: { appname: 'signal-intel-test' } });
    const off = await call('PATCH', `/api/v1/admin/sources/${relief.id}`, { enabled: false });
    expect(off.body.enabled).toBe(false);
    const clash = await call('PATCH', `/api/v1/admin/sources/${relief.id}`, { name: 'GDACS alerts' });
    expect(clash.status).toBe(409);
    expect(clash.body.code).toBe('source_exists');
    const noConnectorChange = await call('PATCH', `/api/v1/admin/sources/${relief.id}`, { connector: 'rss' });
    expect(noConnectorChange.status).toBe(400);
    expect(
      (await call('PATCH', `/api/v1/admin/sources/00000000-0000-4000-8000-000000000000`, {})).status,
    ).toBe(404);
  });

  it('deletes a source without signals; one with signals is 409 source_has_signals', async () => {
    const spare = await call('POST', '/api/v1/admin/sources', { ...reuters, name: 'Spare feed' });
    expect((await call('DELETE', `/api/v1/admin/sources/${spare.body.id}`)).status).toBe(204);
    expect((await call('GET', `/api/v1/admin/sources/${spare.body.id}`)).status).toBe(404);

    const ingested = await app.fetch(
      '/api/v1/admin/sources/who-don/ingest',
      admin({ method: 'POST', body: fixture('who-don.json') }),
    );
    expect(ingested.status).toBe(200);
    const who = (await call('GET', '/api/v1/admin/sources?connector=who-don')).body.data[0] as Json;
    expect(who.signal_count).toBe(3);
    const refused = await call('DELETE', `/api/v1/admin/sources/${who.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'source_has_signals' });
    expect((await call('GET', `/api/v1/admin/sources/${who.id}`)).status).toBe(200);
  });

  it('shows each live source with its health on /sources and its lag on /freshness', async () => {
    // What a poll records (the poller writes these columns; here they are set as it would).
    await app.db
      .update(sources)
      .set({
        lastPolledAt: new Date(Date.now() - 60_000),
        lastSuccessAt: new Date(Date.now() - 600_000),
        lastError: 'HTTP 503 from www.gdacs.org',
        consecutiveFailures: 2,
        lastPollItems: 32,
      })
      .where(eq(sources.name, 'GDACS alerts'));
    const { key } = await createKey(app.db, 'pro');
    const res = await app.fetch('/api/v1/sources', { headers: { 'X-Api-Key': key } });
    expect(res.status).toBe(200);
    const listed = (await res.json<Json>()).data as Json[];
    // Enabled live sources show even before their first signal; disabled ones without signals do not.
    expect(listed.find((s) => s.name === 'GDACS alerts')).toMatchObject({
      connector: 'gdacs',
      enabled: true,
      signal_count: 0,
      last_polled_at: expect.any(String),
      last_success_at: expect.any(String),
      last_error: 'HTTP 503 from www.gdacs.org',
      consecutive_failures: 2,
      last_poll_items: 32,
    });
    expect(listed.find((s) => s.connector === 'reliefweb')).toBeUndefined();
    expect(listed.find((s) => s.connector === 'who-don')).toMatchObject({
      signal_count: 3,
      last_error: null,
    });

    const fresh = await (await app.fetch('/api/v1/freshness')).json<Json>();
    const gdacs = (fresh.live_sources as Json[]).find((s) => s.name === 'GDACS alerts');
    expect(gdacs).toMatchObject({ connector: 'gdacs', consecutive_failures: 2, item_lag_seconds: null });
    expect(gdacs!.poll_lag_seconds).toBeGreaterThanOrEqual(600);
    const never = (fresh.live_sources as Json[]).find(
      (s) => s.name === 'NASA EONET open events (past 7 days)',
    );
    expect(never).toMatchObject({ last_success_at: null, poll_lag_seconds: null });
    expect((fresh.live_sources as Json[]).map((s) => s.connector)).not.toContain('reliefweb');
  });

  it('needs the admin token', async () => {
    expect((await app.fetch('/api/v1/admin/sources')).status).toBe(401);
    expect((await app.fetch('/api/v1/admin/sources', { method: 'POST', body: '{}' })).status).toBe(401);
  });
});
