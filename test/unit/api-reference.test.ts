import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { type OpenApiDocument, renderApiReference } from '../tools/api-reference.js';

const root = new URL('../../../', import.meta.url);

describe('docs/reference/operations.md', () => {
  it('is what openapi.json renders to (npm run openapi writes both)', () => {
    const document = JSON.parse(readFileSync(new URL('openapi.json', root), 'utf8')) as OpenApiDocument;
    const rendered = renderApiReference(document);
    const committed = readFileSync(new URL('docs/reference/operations.md', root), 'utf8');
    assert.ok(committed === rendered, 'docs/reference/operations.md is stale: run npm run openapi');
    const operations = Object.values(document.paths).filter((methods) => methods.post).length;
    assert.equal(rendered.match(/^### `POST /gm)?.length, operations, 'every operation has its section');
  });
});
