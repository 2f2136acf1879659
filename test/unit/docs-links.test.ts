import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/** The docs stand alone: every relative link in README.md, CHANGELOG.md and docs/ reaches a file, and its #anchor a heading. */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), ...(import.meta.url.includes('/dist/') ? ['..', '..', '..'] : ['..', '..']));

function markdownFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? markdownFiles(join(folder, entry.name)) : entry.name.endsWith('.md') ? [join(folder, entry.name)] : [],
  );
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  for (const match of markdown.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6} (.+)$/gm))
    found.add(
      match[1]!
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    );
  return found;
}

describe('docs links', () => {
  it('every relative link reaches a file of the repository, and every anchor a heading in it', () => {
    const files = [join(ROOT, 'README.md'), join(ROOT, 'CHANGELOG.md'), join(ROOT, 'ARCHITECTURE.md'), ...markdownFiles(join(ROOT, 'docs'))];
    const broken: string[] = [];
    let checked = 0;
    for (const file of files) {
      const markdown = readFileSync(file, 'utf8');
      for (const [, target] of markdown.replace(/```[\s\S]*?```/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        checked++;
        const [path, anchor] = target!.split('#');
        const destination = path ? join(dirname(file), path) : file;
        if (!existsSync(destination)) broken.push(`${relative(ROOT, file)} → ${target} (no such file)`);
        else if (anchor && destination.endsWith('.md') && !anchors(readFileSync(destination, 'utf8')).has(anchor))
          broken.push(`${relative(ROOT, file)} → ${target} (no such heading)`);
      }
      assert.doesNotMatch(markdown, /\.\.\/shared\//, `${relative(ROOT, file)} points outside the repository`);
    }
    assert.deepEqual(broken, []);
    assert.ok(checked > 30, `only ${checked} links checked`);
  });
});
