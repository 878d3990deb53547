import { createRoute, z } from '@hono/zod-openapi';
import { jsonBody } from '../http/body';
import { createRouter, errors } from '../http/openapi';
import { ApiError } from '../http/problem';
import { applyLimit, countHit, RULES } from '../http/ratelimit';
import { access } from '../http/auth';
import { email, IssuedKeySchema, keyName } from '../keys/schemas';
import { signUp } from '../keys/service';

const signupRoute = createRoute({
  method: 'post',
  path: '/api/v1/keys',
  tags: ['Keys'],
  summary: 'Sign up for a free key',
  description:
    'Without an API key: creates a free-tier account for `email` and its first key (shown once). An email that already has an account gets 409 `account_exists`. Limited to 5 signups per hour per IP.',
  middleware: [access('public'), jsonBody()] as const,
  request: {
    body: {
      required: true,
      content: { 'application/json': { schema: z.strictObject({ email, name: keyName.optional() }) } },
    },
  },
  responses: {
    201: {
      description: "The account's first key.",
      content: { 'application/json': { schema: IssuedKeySchema } },
    },
    ...errors(400, 401, 409, 413, 415, 429, 503),
  },
});

export const keyRoutes = createRouter().openapi(signupRoute, async (c) => {
  const { db, clientIp } = c.env.deps;
  applyLimit(c, 'public', await countHit(c, RULES.signup, clientIp(c)));
  const body = c.req.valid('json');
  const issued = await signUp(db, body.email, body.name ?? null);
  if (!issued) throw new ApiError(409, 'account_exists', 'An account with this email already exists.');
  return c.json(issued, 201);
});
