import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../deps';
import { access, callerOf, invalidKey } from '../http/auth';
import { jsonBody } from '../http/body';
import { createRouter, errors, security } from '../http/openapi';
import { ApiError, invalidRequest, notFound } from '../http/problem';
import { applyLimit, countHit, keyRule, RULES } from '../http/ratelimit';
import { email, IssuedKeySchema, KeyRecordSchema, keyName } from '../keys/schemas';
import {
  issueAccountKey,
  listAccountKeys,
  MAX_ACTIVE_KEYS,
  MAX_NEW_KEYS_PER_DAY,
  revokeKey,
  signUp,
  type AccountKey,
} from '../keys/service';
import { flushUsage } from '../keys/usage';
import { STORE_TIMEOUT_MS, withDeadline } from '../store/deadline';

const createKeyRoute = createRoute({
  method: 'post',
  path: '/api/v1/keys',
  tags: ['Keys'],
  summary: 'Sign up, or add a key to your account',
  description:
    'Without an API key: `{ email, name? }` creates a free-tier account and its first key; an email that already has an account gets 409 `account_exists`; at most 5 signups per hour per IP. With an API key: `{ name? }` adds another key to the calling account, on its tier; an account holds at most 10 active keys (409 `key_limit_reached`) and may add at most 10 keys in any rolling 24 hours, revoked ones included (429 `rate_limited` with `Retry-After`). The raw key is in this response only. Unknown fields (such as `tier`) are a 400.',
  security: [...security, {}],
  middleware: [access('public'), jsonBody()] as const,
  request: {
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z.strictObject({
            email: email.optional().openapi({ description: 'Signup only: the new account’s email.' }),
            name: keyName.optional(),
          }),
        },
      },
    },
  },
  responses: {
    201: {
      description: 'The new key.',
      content: { 'application/json': { schema: IssuedKeySchema } },
    },
    ...errors(400, 401, 409, 413, 415, 429, 503),
  },
});

const listKeysRoute = createRoute({
  method: 'get',
  path: '/api/v1/keys',
  tags: ['Keys'],
  summary: "List the account's keys",
  description:
    'Every key of the calling account, revoked ones included, with usage. Never the raw key or its hash.',
  security,
  middleware: [access('key')] as const,
  responses: {
    200: {
      description: 'The keys of the account, oldest first.',
      content: {
        'application/json': { schema: z.object({ data: z.array(KeyRecordSchema) }).openapi('KeyList') },
      },
    },
    ...errors(401, 429, 503),
  },
});

const revokeKeyRoute = createRoute({
  method: 'delete',
  path: '/api/v1/keys/{id}',
  tags: ['Keys'],
  summary: 'Revoke a key',
  description:
    'Revokes another key of the calling account; it is refused from its very next request, and its webhooks are deleted with it (with their delivery logs), so nothing is delivered for it any more. The key you authenticate with cannot revoke itself (409 `cannot_revoke_current_key`); a key of another account is 404. Revoking an already revoked key is a 204 again.',
  security,
  middleware: [access('key')] as const,
  request: {
    params: z.object({
      id: z
        .uuid()
        .openapi({ param: { name: 'id', in: 'path' }, example: '0b7c7f5e-3f1a-4c2e-9a51-6f0d2b8e4a11' }),
    }),
  },
  responses: {
    204: { description: 'Revoked; no body.' },
    ...errors(400, 401, 404, 409, 429, 503),
  },
});

type KeyWindow = { used: number; limit: number; reset: number } | null;

/** The current rolling-hour usage of each key, or nulls when the store does not answer. */
async function windows(c: Context<AppEnv>, keys: AccountKey[]): Promise<KeyWindow[]> {
  const { store, log } = c.env.deps;
  try {
    const results = await withDeadline(
      Promise.all(keys.map((key) => store.peek(keyRule(key.tier), key.id))),
      STORE_TIMEOUT_MS,
    );
    return results.map((r) => ({
      used: r.limit - r.remaining,
      limit: r.limit,
      reset: Math.ceil(r.reset / 1000),
    }));
  } catch (error) {
    log.warn('store unavailable; key usage windows left out', { error: String(error) });
    return keys.map(() => null);
  }
}

const keyJson = (key: AccountKey, window: KeyWindow) => ({
  id: key.id,
  prefix: key.prefix,
  name: key.name,
  tier: key.tier,
  created_at: key.createdAt.toISOString(),
  last_used_at: key.lastUsedAt?.toISOString() ?? null,
  revoked_at: key.revokedAt?.toISOString() ?? null,
  usage: {
    requests_total: key.requestsTotal,
    window_used: window?.used ?? null,
    window_limit: window?.limit ?? null,
    window_reset: window?.reset ?? null,
  },
});

export const keyRoutes = createRouter()
  .openapi(createKeyRoute, async (c) => {
    const { db, clientIp } = c.env.deps;
    const body = c.req.valid('json');
    const caller = c.get('caller');
    if (caller) {
      if (body.email !== undefined) {
        throw invalidRequest([
          { path: 'email', message: 'not accepted with an API key: the new key joins the calling account' },
        ]);
      }
      const outcome = await issueAccountKey(db, caller.accountId, body.name ?? null);
      if ('issued' in outcome) return c.json(outcome.issued, 201);
      if (outcome.refused === 'daily_limit') {
        const reset = Math.ceil(c.env.deps.now().getTime() / 1000) + outcome.retryAfterSeconds;
        throw new ApiError(
          429,
          'rate_limited',
          `An account may add at most ${MAX_NEW_KEYS_PER_DAY} keys in 24 hours; retry in ${outcome.retryAfterSeconds} s.`,
          undefined,
          {
            'Retry-After': String(outcome.retryAfterSeconds),
            'X-RateLimit-Limit': String(MAX_NEW_KEYS_PER_DAY),
            'X-RateLimit-Remaining': '0',
            'X-RateLimit-Reset': String(reset),
          },
        );
      }
      if (outcome.refused === 'no_account') {
        throw invalidKey();
      }
      throw new ApiError(
        409,
        'key_limit_reached',
        `This account already has ${MAX_ACTIVE_KEYS} active keys; revoke one first.`,
      );
    }
    applyLimit(c, 'public', await countHit(c, RULES.signup, clientIp(c)));
    if (body.email === undefined) throw invalidRequest([{ path: 'email', message: 'Required' }]);
    const issued = await signUp(db, body.email, body.name ?? null);
    if (!issued) {
      throw new ApiError(
        409,
        'account_exists',
        'An account with this email already exists. To add a key to it, call POST /api/v1/keys with one of its keys (X-Api-Key); if every key is lost, the operator reissues one (npm run cli -- keys create --email <email> --tier <tier>, or POST /api/v1/admin/keys).',
      );
    }
    return c.json(issued, 201);
  })
  .openapi(listKeysRoute, async (c) => {
    const { db } = c.env.deps;
    // Uses recorded after earlier responses may still be on their way to the database.
    await flushUsage(db);
    const keys = await listAccountKeys(db, callerOf(c).accountId);
    const usage = await windows(c, keys);
    return c.json({ data: keys.map((key, i) => keyJson(key, usage[i]!)) }, 200);
  })
  .openapi(revokeKeyRoute, async (c) => {
    const caller = callerOf(c);
    const { id } = c.req.valid('param');
    if (id === caller.keyId) {
      throw new ApiError(
        409,
        'cannot_revoke_current_key',
        'A key cannot revoke itself; authenticate with another key of the account.',
      );
    }
    const outcome = await revokeKey(c.env.deps, caller.accountId, id);
    if (outcome === 'not_found') throw notFound('key');
    if (outcome === 'flag_failed') {
      c.env.deps.log.warn('key revoked in the database but not flagged in the store', { keyId: id });
      throw new ApiError(
        503,
        'service_unavailable',
        'The revocation could not be completed; retry.',
        undefined,
        {
          'Retry-After': '5',
        },
      );
    }
    return c.body(null, 204);
  });
