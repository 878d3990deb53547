import { z } from '@hono/zod-openapi';

const flag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((v) => (v === undefined ? fallback : v === 'true' || v === '1'));

const optionalUrl = z.url().optional();

const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8787),
  /**
   * The address the Node server binds. Loopback by default, since the embedded demo prints an
   * admin token and a key: reachable from this machine only until someone chooses otherwise
   * (the container sets `0.0.0.0`, its port being published on purpose).
   */
  HOST: z
    .string()
    .regex(/^[A-Za-z0-9.:-]+$/, 'must be an IP address or a host name, e.g. 127.0.0.1 or 0.0.0.0')
    .default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('.data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  UPSTASH_REDIS_REST_URL: optionalUrl,
  UPSTASH_REDIS_REST_TOKEN: z.string().min(1).optional(),
  ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  WEBHOOK_ENCRYPTION_KEY: z
    .string()
    .regex(
      /^\s*[A-Za-z0-9+/]{43}=\s*(,\s*[A-Za-z0-9+/]{43}=\s*)*$/,
      'must be 32 bytes in base64 (44 characters), or a comma-separated list of such keys, newest first',
    )
    .optional(),
  WEBHOOK_ALLOW_INSECURE: flag(false),
  /** Ports webhook URLs may use besides 443, e.g. `8443,9443`. */
  WEBHOOK_ALLOWED_PORTS: z
    .string()
    .regex(/^\s*\d{1,5}\s*(,\s*\d{1,5}\s*)*$/, 'must be a comma-separated list of port numbers')
    .refine((v) => v.split(',').every((p) => Number(p) >= 1 && Number(p) <= 65535), 'ports are 1-65535')
    .optional()
    .transform((v) => (v ? v.split(',').map((p) => Number(p.trim())) : [])),
  TRUST_PROXY: flag(false),
  /** With TRUST_PROXY: how many proxies append to X-Forwarded-For in front of the server. */
  TRUST_PROXY_HOPS: z.coerce.number().int().min(1).max(10).default(1),
  SEED: flag(true),
  PUBLIC_BASE_URL: optionalUrl,
  BRIEF_LLM_URL: optionalUrl,
  BRIEF_LLM_API_KEY: z.string().min(1).optional(),
  BRIEF_LLM_MODEL: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  /** Longest a database statement may run before it is cancelled and answered 503; 0: no limit. */
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(5_000),
  /** Node server: poll the live sources on a timer, in their own embedded database (no demo data). */
  LIVE_SOURCES: flag(false),
  /** Named in the pollers' User-Agent so feed operators can reach whoever runs this deployment. */
  SOURCE_CONTACT_URL: optionalUrl,
  /** Largest feed document a poll reads; a bigger one is an error on that source. */
  SOURCE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(5 * 1024 * 1024),
  /** Node server: longest a client may take to send a request's headers (docs/limits-and-bounds.md). */
  SERVER_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  /** Node server: longest a client may take to send a whole request, headers and body. */
  SERVER_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  /** Node server: how long an idle keep-alive connection stays open. */
  SERVER_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
  /** Node server: most open connections one client address may hold; 0: no cap (behind a proxy). */
  SERVER_MAX_CONNECTIONS_PER_IP: z.coerce.number().int().min(0).max(100_000).default(256),
  /** Live stream (docs/stream.md): a comment line this often keeps proxies from closing an idle stream. */
  STREAM_HEARTBEAT_MS: z.coerce.number().int().min(10).max(300_000).default(15_000),
  /** Live stream: longest one stream stays open; it then ends with a resumable id. */
  STREAM_MAX_LIFETIME_MS: z.coerce.number().int().min(100).max(86_400_000).default(3_600_000),
  /** Live stream: how long a client waits before reconnecting (the `retry:` hint). */
  STREAM_RETRY_MS: z.coerce.number().int().min(100).max(600_000).default(3_000),
  /** Live stream: bytes queued for a reader that does not keep up before it is cut off. */
  STREAM_BUFFER_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(256 * 1024),
  /** Live stream: how far back a cursor may resume; older ones answer 410 (resync instead). */
  STREAM_RESUME_WINDOW_HOURS: z.coerce.number().int().min(1).max(720).default(24),
  /** Live stream: how often open streams' keys are checked for revocation. */
  STREAM_KEY_CHECK_MS: z.coerce.number().int().min(10).max(60_000).default(30_000),
});

export type Config = z.infer<typeof ConfigSchema>;

/** Thrown at start when the environment is invalid; `problems` has one line per bad variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Validates environment variables (or Worker bindings); empty strings count as unset. */
export function loadConfig(env: Record<string, unknown>): Config {
  const cleaned = Object.fromEntries(
    Object.entries(env).filter(([, v]) => typeof v === 'string' && v !== ''),
  );
  const parsed = ConfigSchema.safeParse(cleaned);
  const problems = parsed.success
    ? []
    : parsed.error.issues.map((issue) => `${issue.path.join('.') || 'env'}: ${issue.message}`);
  if ('UPSTASH_REDIS_REST_URL' in cleaned !== 'UPSTASH_REDIS_REST_TOKEN' in cleaned) {
    problems.push('UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN must be set together');
  }
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  return parsed.data;
}
