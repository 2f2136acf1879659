import { readFileSync, writeFileSync } from 'node:fs';
import { type OpenApiDocument, renderApiReference } from './api-reference.js';

/** `npm run openapi` (after writing openapi.json): writes docs/reference/operations.md from it. */
const root = new URL('../../../', import.meta.url);
const document = JSON.parse(readFileSync(new URL('openapi.json', root), 'utf8')) as OpenApiDocument;
writeFileSync(new URL('docs/reference/operations.md', root), renderApiReference(document));
process.stdout.write('wrote docs/reference/operations.md\n');
