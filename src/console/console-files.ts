import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';

/** Where `npm run build` puts the console (`console/build.mjs`): `dist/console`, beside `dist/src`. */
const BUILT_CONSOLE = fileURLToPath(new URL('../../console', import.meta.url));

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** A file of the console, read once. */
export interface ConsoleFile {
  body: Buffer;
  type: string;
}

/**
 * The built console's files, read on first use and kept (a page and two hashed assets, about
 * 60 kB), so a service that nobody opens the console of holds none of it. The page names the
 * service's header product (`HEADER_PRODUCT`), which the console's requests use.
 */
@Injectable()
export class ConsoleFiles {
  private files: { page: Buffer; assets: Map<string, ConsoleFile> } | undefined;

  constructor(private readonly config: AppConfig) {}

  /** The page, or undefined when the console was not built. */
  page(): Buffer | undefined {
    return this.load()?.page;
  }

  /** A hashed asset by its file name, or undefined. */
  asset(name: string): ConsoleFile | undefined {
    return this.load()?.assets.get(name);
  }

  private load() {
    if (this.files) return this.files;
    const page = join(BUILT_CONSOLE, 'index.html');
    if (!existsSync(page)) return undefined;
    const meta = `<meta name="header-product" content="${this.config.headerProduct}" />`;
    const assets = new Map<string, ConsoleFile>();
    for (const name of readdirSync(join(BUILT_CONSOLE, 'assets'))) {
      const type = TYPES[extname(name)];
      if (type) assets.set(name, { body: readFileSync(join(BUILT_CONSOLE, 'assets', name)), type });
    }
    this.files = { page: Buffer.from(readFileSync(page, 'utf8').replace('<title>', `${meta}\n    <title>`)), assets };
    return this.files;
  }
}
