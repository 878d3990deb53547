/**
 * The OpenAPI document as the test suite's contract: every response a test client receives is
 * checked against the operation it answers (status declared, content type declared, JSON body
 * valid against the schema with Ajv, declared headers well formed). A mismatch is recorded and
 * thrown, and `contract-setup.ts` fails the test that saw it even if the test swallowed the
 * error. Counts go to CONTRACT_REPORT_DIR for the reporter to print at the end of the run.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { createApp, openApiDocument } from '../../src/app';

type Json = Record<string, unknown>;
interface MediaType {
  schema?: Json;
}
interface ResponseObject {
  description?: string;
  headers?: Record<string, Json>;
  content?: Record<string, MediaType>;
}
interface Operation {
  operationId: string;
  responses: Record<string, ResponseObject>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: Json;
}

const DOC_ID = 'https://contract.test/openapi.json';

interface Route {
  template: string;
  pattern: RegExp;
  literal: number;
  operations: Record<string, Operation>;
}

class Contract {
  readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  readonly routes: Route[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly document: Document) {
    const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
    addFormats(this.ajv);
    this.ajv.addSchema(document, DOC_ID);
    this.routes = Object.entries(document.paths)
      .map(([template, operations]) => ({
        template,
        operations,
        // A literal segment beats a parameter: `/api/v1/keys` is not `/api/v1/keys/{id}`.
        literal: template.split('/').filter((s) => s && !s.startsWith('{')).length,
        pattern: new RegExp(
          `^${template
            .split(/(\{[^}]+\})/)
            .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
            .join('')}$`,
        ),
      }))
      .sort((a, b) => b.literal - a.literal);
  }

  route(path: string): Route | undefined {
    return this.routes.find((route) => route.pattern.test(path));
  }

  /** `#/components/...` of the document, resolved. */
  resolve<T>(value: T | { $ref: string }): T {
    const ref = (value as { $ref?: string })?.$ref;
    if (!ref) return value as T;
    let target: unknown = this.document;
    for (const part of ref.replace(/^#\//, '').split('/')) {
      target = (target as Json)[part.replaceAll('~1', '/').replaceAll('~0', '~')];
    }
    return this.resolve(target as T);
  }

  /** An Ajv validator for a header's (inline, ref-free) schema. */
  headerValidator(schema: Json): ValidateFunction {
    const key = `header:${JSON.stringify(schema)}`;
    let validate = this.validators.get(key);
    if (!validate) this.validators.set(key, (validate = this.ajv.compile(schema)));
    return validate;
  }

  /** An Ajv validator for the schema at `pointer` (a JSON pointer into the document). */
  validator(pointer: string): ValidateFunction {
    let validate = this.validators.get(pointer);
    if (!validate) {
      validate = this.ajv.getSchema(`${DOC_ID}#${pointer}`);
      if (!validate) throw new Error(`no schema at ${pointer}`);
      this.validators.set(pointer, validate);
    }
    return validate;
  }
}

let contract: Contract | undefined;

/** The document the app serves, compiled once per test file. */
export function theContract(): Contract {
  contract ??= new Contract(openApiDocument(createApp()) as unknown as Document);
  return contract;
}

const escape = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

const mediaTypeOf = (header: string | null) => (header ?? '').split(';')[0]!.trim().toLowerCase();
const isJson = (mediaType: string) => mediaType === 'application/json' || mediaType.endsWith('+json');

/** A header's value as its schema types it (headers are strings on the wire). */
function typedHeader(value: string, schema: Json): unknown {
  if ((schema.type === 'integer' || schema.type === 'number') && /^-?\d+(\.\d+)?$/.test(value.trim())) {
    return Number(value);
  }
  return value;
}

const describeErrors = (validate: ValidateFunction) =>
  (validate.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '(root)'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`)
    .join('; ');

/**
 * What is wrong with `response` (whose body text is `body`) as the answer to `method url`
 * under the document; empty when it conforms. `null` when the exchange is outside the API
 * (a CORS preflight), which is checked by its own tests.
 */
export function contractViolations(
  method: string,
  url: URL,
  response: Response,
  body: string,
): string[] | null {
  const c = theContract();
  const verb = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
  if (verb === 'options') return null;
  const problems: string[] = [];
  const route = c.route(url.pathname);
  const operation = route?.operations[verb];
  const status = response.status;
  const mediaType = mediaTypeOf(response.headers.get('content-type'));

  if (!route || !operation) {
    // Outside the document: an unknown path (404) or a method the path does not have (404/405)
    // must still be a problem+json answer.
    const allowed = route ? [404, 405] : [404];
    if (!allowed.includes(status))
      problems.push(`undocumented ${route ? 'method' : 'path'} answered ${status}`);
    if (mediaType !== 'application/problem+json') problems.push(`undocumented route answered ${mediaType}`);
    else problems.push(...jsonViolations(c, '/components/schemas/Problem', body));
    return problems;
  }

  const declared =
    operation.responses[String(status)] ??
    operation.responses[`${String(status)[0]}XX`] ??
    operation.responses.default;
  const where = `${verb.toUpperCase()} ${route.template} → ${status}`;
  if (!declared)
    return [`${where}: status not declared (declared: ${Object.keys(operation.responses).join(', ')})`];
  const statusKey = operation.responses[String(status)] ? String(status) : `${String(status)[0]}XX`;
  const responsePointer = `/paths/${escape(route.template)}/${verb}/responses/${statusKey}`;
  const response$ = c.resolve(declared);

  const hasBody = body.length > 0 && method.toLowerCase() !== 'head';
  const content = response$.content ?? {};
  if (hasBody) {
    if (!Object.keys(content).length) problems.push(`${where}: a body (${mediaType}) where none is declared`);
    else if (!(mediaType in content)) {
      problems.push(
        `${where}: content type ${mediaType || '(none)'} not declared (${Object.keys(content).join(', ')})`,
      );
    } else if (isJson(mediaType) && content[mediaType]!.schema) {
      const pointer =
        declared === response$ ? `${responsePointer}/content/${escape(mediaType)}/schema` : null;
      problems.push(
        ...jsonViolations(c, pointer ?? schemaPointerOf(c, declared, mediaType), body).map(
          (p) => `${where}: ${p}`,
        ),
      );
    }
  } else if (
    Object.keys(content).length &&
    status !== 304 &&
    method.toLowerCase() !== 'head' &&
    status !== 204
  ) {
    problems.push(`${where}: empty body where ${Object.keys(content).join(', ')} is declared`);
  }

  for (const [name, header$] of Object.entries(response$.headers ?? {})) {
    const header = c.resolve(header$) as { required?: boolean; schema?: Json };
    const value = response.headers.get(name);
    if (value === null) {
      if (header.required) problems.push(`${where}: required header ${name} missing`);
      continue;
    }
    if (!header.schema) continue;
    const validate = c.headerValidator(header.schema);
    if (!validate(typedHeader(value, header.schema))) {
      problems.push(`${where}: header ${name}: ${JSON.stringify(value)} ${describeErrors(validate)}`);
    }
  }
  return problems;
}

function schemaPointerOf(c: Contract, declared: ResponseObject, mediaType: string): string {
  const ref = (declared as { $ref?: string }).$ref!;
  return `${ref.replace(/^#/, '')}/content/${escape(mediaType)}/schema`;
}

function jsonViolations(c: Contract, pointer: string, body: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [`body is not JSON: ${body.slice(0, 80)}`];
  }
  const validate = c.validator(pointer);
  if (validate(parsed)) return [];
  return [`body does not match ${pointer}: ${describeErrors(validate)}`];
}

/** Responses checked, checked-and-failed, and outside the API (preflights), in this file. */
export const contractStats = { validated: 0, preflights: 0, mismatches: [] as string[] };

class ContractViolation extends Error {
  override name = 'ContractViolation';
}

/**
 * Wraps a test client's `fetch(path, init)` so that every response it returns has been
 * checked against the document (the body is read from a clone; the caller's is untouched).
 */
export function contractFetch(
  base: string,
  inner: (input: string, init?: RequestInit) => Promise<Response>,
): (path: string, init?: RequestInit) => Promise<Response> {
  return async (path, init) => {
    const response = await inner(path, init);
    const method = init?.method ?? 'GET';
    // An open live stream has no end to read: its events are checked by the stream suites.
    if (response.ok && (response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      return response;
    }
    let body: string;
    try {
      body = await response.clone().text();
    } catch {
      // The caller aborted mid-body; what it asked about is its own behaviour, not the contract.
      return response;
    }
    const problems = contractViolations(method, new URL(path, base), response, body);
    if (problems === null) {
      contractStats.preflights += 1;
      return response;
    }
    contractStats.validated += 1;
    if (problems.length) {
      const message = `${method.toUpperCase()} ${path.slice(0, 160)} broke the OpenAPI contract:\n  ${problems.join('\n  ')}`;
      contractStats.mismatches.push(message);
      throw new ContractViolation(message);
    }
    return response;
  };
}

/** Writes this file's counts where the reporter collects them (see vitest.config.ts). */
export function saveContractStats(file: string): void {
  const dir = process.env.CONTRACT_REPORT_DIR;
  if (!dir || contractStats.validated + contractStats.preflights === 0) return;
  const name = `${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.json`;
  writeFileSync(join(dir, name), JSON.stringify({ file, ...contractStats }));
}
