/**
 * Writes the OpenAPI document the app serves to a file (or stdout), for linters and other
 * tools that read a file: `tsx scripts/openapi-document.ts test-output/openapi.json`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { createApp, openApiDocument } from '../src/app';

const text = `${JSON.stringify(openApiDocument(createApp()), null, 2)}\n`;
const target = process.argv[2];
if (target) {
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, text);
  console.error(`wrote ${target}`);
} else {
  process.stdout.write(text);
}
