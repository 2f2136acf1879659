import { Controller, Get, Header, Param, StreamableFile } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Auth } from '../common/decorators/operation.decorator.js';
import { ConsoleFiles } from './console-files.js';
import { ConsoleErrors } from './console.errors.js';

/**
 * What every console answer carries: scripts and styles only from the service itself, no inline
 * script or style, requests only to the service, never framed by another site (nor by itself),
 * no referrer (the sign-in link's token is in the first address), no type sniffing.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function securityHeaders(): MethodDecorator {
  const headers: [string, string][] = [
    ['content-security-policy', CONTENT_SECURITY_POLICY],
    ['x-frame-options', 'DENY'],
    ['x-content-type-options', 'nosniff'],
    ['referrer-policy', 'no-referrer'],
    ['cross-origin-opener-policy', 'same-origin'],
  ];
  return (target, key, descriptor) => {
    for (const [name, value] of headers) Header(name, value)(target, key, descriptor);
  };
}

/** `GET /console`: the owners' web console (issue 34), a browser app built from `console/`. */
@ApiExcludeController()
@Controller()
export class ConsoleController {
  constructor(private readonly files: ConsoleFiles) {}

  @Get('console')
  @Auth('public')
  @securityHeaders()
  @Header('content-type', 'text/html; charset=utf-8')
  @Header('cache-control', 'no-cache')
  page(): Buffer {
    const page = this.files.page();
    if (!page) throw ConsoleErrors.notBuilt();
    return page;
  }

  /** The hashed script and style sheet: a new build gets new names, so they are kept for a year. */
  @Get('console/assets/:file')
  @Auth('public')
  @securityHeaders()
  @Header('cache-control', 'public, max-age=31536000, immutable')
  asset(@Param('file') file: string): StreamableFile {
    const found = this.files.asset(file);
    if (!found) throw ConsoleErrors.fileMissing();
    return new StreamableFile(found.body, { type: found.type, length: found.body.length });
  }
}
