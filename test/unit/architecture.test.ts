import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * ARCHITECTURE.md, checked: its layer table and allowed sideways imports against every import in
 * src/, and its table owners and allowed crossings against every SQL statement and entity import.
 * The document is the only list: edit it (with the code) to move a folder or a table.
 */

// The source tree, from dist/test/unit/ or test/unit/ alike.
const ROOT = join(dirname(fileURLToPath(import.meta.url)), ...(import.meta.url.includes('/dist/') ? ['..', '..', '..'] : ['..', '..']));
const SRC = join(ROOT, 'src');
const ROOT_FOLDER = '(root)';

// ------------------------------------------------------------------------------------------------
// Reading the document

/** The rows of the first table after `heading` whose header row starts with `firstColumn`. */
function tableAfter(markdown: string, heading: string, firstColumn: string): string[][] {
  const from = markdown.indexOf(`\n${heading}\n`);
  assert.ok(from >= 0, `ARCHITECTURE.md has no "${heading}"`);
  const lines = markdown.slice(from).split('\n');
  const start = lines.findIndex((line) => line.startsWith(`| ${firstColumn} |`));
  assert.ok(start >= 0, `ARCHITECTURE.md has no table under "${heading}" starting with "${firstColumn}"`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

/** The `code` spans of a cell. */
const codes = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

/** A folder token (`access/`) or a root file (`main.ts`) or `root`, as a folder name. */
const folderOf = (token: string) => (token === 'root' || !token.includes('/') ? ROOT_FOLDER : token.replace(/\/$/, ''));

export interface Architecture {
  /** Folder → its layer's index (0 is the top). */
  layers: Map<string, number>;
  /** `from → to` folder pairs allowed within a layer. */
  beside: Set<string>;
  /** Table → the owner's file, relative to src/. */
  owners: Map<string, string>;
  /** File (relative to src/) → the other owners' tables it may name. */
  crossings: Map<string, Set<string>>;
}

export function readArchitecture(markdown: string): Architecture {
  const layers = new Map<string, number>();
  tableAfter(markdown, '## Layers', 'layer').forEach(([, folders], index) => {
    for (const token of codes(folders!)) layers.set(folderOf(token), index);
  });
  const beside = new Set<string>();
  for (const [from, to] of tableAfter(markdown, '### Imports within a layer', 'from')) {
    for (const source of codes(from!)) for (const target of codes(to!)) beside.add(`${folderOf(source)} → ${folderOf(target)}`);
  }
  const owners = new Map<string, string>();
  for (const [tables, owner] of tableAfter(markdown, '## Table owners', 'tables')) {
    const file = codes(owner!).find((token) => token.endsWith('.ts'));
    assert.ok(file, `the owner of ${tables} names no file`);
    for (const table of codes(tables!)) owners.set(table, file);
  }
  const crossings = new Map<string, Set<string>>();
  for (const [file, tables] of tableAfter(markdown, '### Statements that cross on purpose', 'file')) {
    crossings.set(codes(file!)[0]!, new Set(codes(tables!)));
  }
  return { layers, beside, owners, crossings };
}

// ------------------------------------------------------------------------------------------------
// Reading the code

export interface SourceFile {
  /** Relative to src/, with forward slashes. */
  path: string;
  text: string;
}

function sourceFiles(): SourceFile[] {
  const files: SourceFile[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) files.push({ path: relative(SRC, path).split('\\').join('/'), text: readFileSync(path, 'utf8') });
    }
  };
  walk(SRC);
  return files;
}

const folderOfFile = (path: string) => (path.includes('/') ? path.slice(0, path.indexOf('/')) : ROOT_FOLDER);

/** The files a file imports from src/ (relative imports, static or dynamic), and whether only types come. */
function importsOf(file: SourceFile): { target: string; typeOnly: boolean }[] {
  const found: { target: string; typeOnly: boolean }[] = [];
  const pattern = /(?:^|\n)\s*(import|export)(\s+type)?\b[^'";]*?\bfrom\s+'(\.{1,2}\/[^']+)'|\bimport\(\s*'(\.{1,2}\/[^']+)'\s*\)/g;
  for (const match of file.text.matchAll(pattern)) {
    const specifier = match[3] ?? match[4]!;
    const target = posix.normalize(posix.join(posix.dirname(file.path), specifier)).replace(/\.js$/, '.ts');
    found.push({ target, typeOnly: Boolean(match[2]) });
  }
  return found;
}

/** The code without comments (so prose naming a table is not read as SQL). */
const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

/** Tables a file's SQL names: after FROM, JOIN, INTO, UPDATE or TABLE, as the code writes SQL (upper case). */
function tablesInSql(file: SourceFile, tables: Set<string>): Set<string> {
  const named = new Set<string>();
  for (const match of withoutComments(file.text).matchAll(/\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+"?([a-z_]+)"?/g)) {
    if (tables.has(match[1]!)) named.add(match[1]!);
  }
  return named;
}

/** The table an entity file maps (`@Entity('name')`), if it is one. */
const tableOfEntity = (file: SourceFile) => /@Entity\(\s*'([a-z_]+)'/.exec(file.text)?.[1];

// ------------------------------------------------------------------------------------------------
// The rules

export function importProblems(architecture: Architecture, files: SourceFile[]): string[] {
  const problems: string[] = [];
  const layerOf = (folder: string) => architecture.layers.get(folder);
  for (const folder of new Set(files.map((file) => folderOfFile(file.path)))) {
    if (layerOf(folder) === undefined) problems.push(`${folder}/ is in no layer of ARCHITECTURE.md`);
  }
  for (const file of files) {
    const from = folderOfFile(file.path);
    for (const { target } of importsOf(file)) {
      const to = folderOfFile(target);
      if (to === from) continue;
      const [fromLayer, toLayer] = [layerOf(from), layerOf(to)];
      if (fromLayer === undefined || toLayer === undefined) continue;
      if (toLayer < fromLayer) problems.push(`${file.path} imports ${target}: ${to}/ is in a layer above ${from}/`);
      else if (toLayer === fromLayer && !architecture.beside.has(`${from} → ${to}`))
        problems.push(`${file.path} imports ${target}: ${to}/ is beside ${from}/ in its layer, and ARCHITECTURE.md allows no such import`);
    }
  }
  return problems;
}

export function ownerProblems(architecture: Architecture, files: SourceFile[]): string[] {
  const problems: string[] = [];
  const tables = new Set(architecture.owners.keys());
  const byPath = new Map(files.map((file) => [file.path, file]));
  for (const [table, owner] of architecture.owners) {
    if (!byPath.has(owner)) problems.push(`the owner of ${table}, ${owner}, does not exist`);
  }
  const entityTables = new Map<string, string>();
  for (const file of files) {
    const table = tableOfEntity(file);
    if (!table) continue;
    entityTables.set(file.path, table);
    if (!tables.has(table)) problems.push(`${file.path} maps the table ${table}, which has no owner in ARCHITECTURE.md`);
  }
  // Migrations are the schema: they name every table.
  for (const file of files.filter((file) => !file.path.startsWith('database/migrations/'))) {
    const allowed = (table: string) => architecture.owners.get(table) === file.path || architecture.crossings.get(file.path)?.has(table);
    for (const table of tablesInSql(file, tables)) {
      if (!allowed(table)) problems.push(`${file.path} names the table ${table} in SQL; its owner is ${architecture.owners.get(table)}`);
    }
    if (entityTables.has(file.path)) continue;
    for (const { target, typeOnly } of importsOf(file)) {
      const table = entityTables.get(target);
      if (!table || typeOnly || allowed(table)) continue;
      // The module of the owner's folder registers the entity (TypeOrmModule.forFeature).
      const owner = architecture.owners.get(table);
      if (owner && file.path.endsWith('.module.ts') && folderOfFile(file.path) === folderOfFile(owner)) continue;
      problems.push(`${file.path} uses the entity of ${table}; its owner is ${owner}`);
    }
  }
  return problems;
}

/**
 * Files that import each other, directly or round a circle (type imports count: a shared type
 * belongs in a leaf file both import). Each circle is named once, by its files in import order.
 */
export function importCircles(files: SourceFile[]): string[] {
  const known = new Set(files.map((file) => file.path));
  const edges = new Map(files.map((file) => [file.path, [...new Set(importsOf(file).map((i) => i.target))].filter((t) => known.has(t))]));
  const circles = new Set<string>();
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (node: string) => {
    const at = path.indexOf(node);
    if (at >= 0) {
      const circle = path.slice(at);
      // Named from its smallest file, so the same circle found from elsewhere reads the same.
      const start = circle.indexOf([...circle].sort()[0]!);
      circles.add([...circle.slice(start), ...circle.slice(0, start)].join(' → '));
      return;
    }
    if (done.has(node)) return;
    path.push(node);
    for (const next of edges.get(node) ?? []) visit(next);
    path.pop();
    done.add(node);
  };
  for (const file of files) visit(file.path);
  return [...circles];
}

/**
 * Errors are built in one catalogue per module (`<module>/<name>.errors.ts`), so a message is
 * written once and a handler throws by intent (`CommentErrors.threadNotFound()`). Only the HTTP
 * layer and the CLI in `common/` and `cli/` build errors from what they are given (the exception
 * filter, guards, the validation pipe).
 */
export function errorCatalogueProblems(files: SourceFile[]): string[] {
  return files
    .filter((file) => !/^(common|cli)\//.test(file.path) && !file.path.endsWith('.errors.ts') && /\bnew ApiError\(/.test(file.text))
    .map((file) => `${file.path} builds an ApiError; put it in its module's .errors.ts catalogue`);
}

/** Table owners not written as an `XStore` class in an `x-store.ts` file (one shape and one suffix for every owner). */
export function ownerShapeProblems(architecture: Architecture, files: SourceFile[]): string[] {
  const byPath = new Map(files.map((file) => [file.path, file]));
  return [...new Set(architecture.owners.values())].flatMap((owner) => {
    const problems: string[] = [];
    if (!owner.endsWith('-store.ts')) problems.push(`${owner} owns tables; name its file x-store.ts`);
    const text = byPath.get(owner)?.text ?? '';
    if (!/export class \w+Store\b/.test(text)) problems.push(`${owner} owns tables; its owner class is named XStore`);
    return problems;
  });
}

/**
 * Files that load the SQLite driver themselves, or open a better-sqlite3 DataSource without
 * handing TypeORM the driver (it would load `better-sqlite3` itself): only
 * `database/sqlite-driver.ts` chooses the driver this Node.js needs.
 */
export function sqliteDriverProblems(files: SourceFile[]): string[] {
  return files.flatMap((file) => {
    if (file.path === 'database/sqlite-driver.ts') return [];
    const problems: string[] = [];
    if (/import\s+(?!type\b)[^;]*from\s+'better-sqlite3(-node20)?'|require\('better-sqlite3(-node20)?'\)/.test(file.text))
      problems.push(`${file.path} loads better-sqlite3; take SqliteDatabase from database/sqlite-driver.ts`);
    if (/type: 'better-sqlite3',(?![^}]*\bdriver:)/.test(file.text)) problems.push(`${file.path} opens a better-sqlite3 DataSource without its driver`);
    return problems;
  });
}

// ------------------------------------------------------------------------------------------------

describe('ARCHITECTURE.md, checked against src/', () => {
  const architecture = readArchitecture(readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8'));
  const files = sourceFiles();

  it('reads the layers, owners and exceptions from the document', () => {
    assert.ok(architecture.layers.size >= 15, `${architecture.layers.size} folders in layers`);
    assert.ok(architecture.owners.size >= 30, `${architecture.owners.size} tables with owners`);
    assert.ok(architecture.beside.size >= 4 && architecture.crossings.size >= 3);
    assert.ok(files.length > 100, `${files.length} source files`);
  });

  it('imports run down the layers, or beside only where the document allows', () => {
    assert.deepEqual(importProblems(architecture, files), []);
  });

  it('only a table’s owner names it in SQL or uses its entity, but for the listed crossings', () => {
    assert.deepEqual(ownerProblems(architecture, files), []);
  });

  it('no files import each other, round any circle (type imports included)', () => {
    assert.deepEqual(importCircles(files), []);
    const circle = [
      { path: 'events/a.ts', text: "import type { B } from './b.js';" },
      { path: 'events/b.ts', text: "import { C } from './c.js';" },
      { path: 'events/c.ts', text: "export { A } from './a.js';" },
    ];
    assert.deepEqual(importCircles(circle), ['events/a.ts → events/b.ts → events/c.ts']);
    assert.deepEqual(importCircles(circle.slice(0, 2)), []);
  });

  it("errors are built in their module's catalogue (.errors.ts), outside the HTTP layer and the CLI", () => {
    assert.deepEqual(errorCatalogueProblems(files), []);
    const inline = { path: 'comments/comments.service.ts', text: "throw new ApiError('NOT_FOUND', 'Annotation not found.');" };
    assert.match(errorCatalogueProblems([inline]).join('\n'), /comments\/comments\.service\.ts builds an ApiError/);
    assert.deepEqual(
      errorCatalogueProblems([
        { path: 'comments/comments.errors.ts', text: inline.text },
        { path: 'common/validation/pipe.ts', text: inline.text },
      ]),
      [],
    );
  });

  // The rules have teeth: each catches the mistake it exists for.
  it('every table owner is an XStore class in an x-store.ts file', () => {
    assert.deepEqual(ownerShapeProblems(architecture, files), []);
    const service = { path: 'mail/mailer.service.ts', text: 'export class Mailer {}' };
    assert.deepEqual(ownerShapeProblems({ ...architecture, owners: new Map([['outgoing_mail', service.path]]) }, [service]), [
      'mail/mailer.service.ts owns tables; name its file x-store.ts',
      'mail/mailer.service.ts owns tables; its owner class is named XStore',
    ]);
  });

  it('only database/sqlite-driver.ts loads the SQLite driver; DataSources are handed it', () => {
    assert.deepEqual(sqliteDriverProblems(files), []);
    assert.deepEqual(
      sqliteDriverProblems([
        { path: 'database/embedded-reads.ts', text: "import Database from 'better-sqlite3';" },
        { path: 'database/options.ts', text: "return { type: 'better-sqlite3', database: file };" },
        { path: 'database/typed.ts', text: "import type BetterSqlite3 from 'better-sqlite3';\nreturn { type: 'better-sqlite3', driver: SqliteDatabase };" },
      ]),
      [
        'database/embedded-reads.ts loads better-sqlite3; take SqliteDatabase from database/sqlite-driver.ts',
        'database/options.ts opens a better-sqlite3 DataSource without its driver',
      ],
    );
  });

  it('fails on an upward import, a sideways import, a folder in no layer, and a foreign table', () => {
    const upward = { path: 'common/errors.ts', text: "import { X } from '../comments/comment-store.js';" };
    assert.match(
      importProblems(architecture, [upward]).join('\n'),
      /common\/errors\.ts imports comments\/comment-store\.ts: comments\/ is in a layer above common\//,
    );
    const sideways = { path: 'access/access.service.ts', text: "import { ActivityStore } from '../activity/activity-store.js';" };
    assert.match(importProblems(architecture, [sideways]).join('\n'), /activity\/ is beside access\/ in its layer/);
    assert.match(importProblems(architecture, [{ path: 'nowhere/x.ts', text: '' }]).join('\n'), /nowhere\/ is in no layer/);
    const foreign = { path: 'comments/comment-store.ts', text: 'const sql = `SELECT 1 FROM inbox_recipient r WHERE r.id = $1`;' };
    assert.match(
      ownerProblems(architecture, [foreign]).join('\n'),
      /comments\/comment-store\.ts names the table inbox_recipient in SQL; its owner is inbox\/inbox-store\.ts/,
    );
    const entity = [
      { path: 'directory/entities/folder.entity.ts', text: "@Entity('folder')\nexport class FolderEntity {}" },
      { path: 'access/grant-store.ts', text: "import { FolderEntity } from '../directory/entities/folder.entity.js';" },
    ];
    assert.match(ownerProblems(architecture, entity).join('\n'), /access\/grant-store\.ts uses the entity of folder/);
    // Prose is not SQL.
    assert.deepEqual(
      ownerProblems(architecture, [{ path: 'comments/comment-store.ts', text: '// reads FROM inbox_recipient\n' }]).filter((problem) =>
        problem.includes('in SQL'),
      ),
      [],
    );
  });
});
