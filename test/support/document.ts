import { createApp, openApiDocument } from '../../src/app';
import { DOCS_SCRIPT_PATH } from '../../src/routes/docs';

const SAMPLE_ID = '00000000-0000-4000-8000-000000000000';

/**
 * Every path the OpenAPI document declares (path parameters filled with a sample UUID) with its
 * methods, upper-case. The docs page's script is left out: a static file outside the app (Node
 * serves it from node_modules, Workers as an asset), so the app's routing does not apply to it.
 */
export function documentedPaths(): { template: string; path: string; methods: string[] }[] {
  const document = openApiDocument(createApp()) as unknown as {
    paths: Record<string, Record<string, unknown>>;
  };
  return Object.entries(document.paths)
    .filter(([template]) => template !== DOCS_SCRIPT_PATH)
    .map(([template, operations]) => ({
      template,
      path: template.replace(/\{[^}]+\}/g, SAMPLE_ID),
      methods: Object.keys(operations)
        .filter((method) => !method.startsWith('x-') && method !== 'parameters')
        .map((method) => method.toUpperCase()),
    }));
}
