import type { IncomingMessage } from 'node:http';
import type { AppConfig } from '../config/app-config.js';

/** The Node request under either adapter (Fastify wraps it as `raw`). */
export type AdapterRequest = IncomingMessage & { raw?: IncomingMessage };

/** Where attachment links point: `PUBLIC_URL`, else the host the caller reached (every operation handing out links uses this). */
export function linkBaseUrl(config: AppConfig, request: AdapterRequest): string {
  if (config.publicUrl) return config.publicUrl;
  const raw = request.raw ?? request;
  const secure = (raw.socket as { encrypted?: boolean }).encrypted === true;
  return `${secure ? 'https' : 'http'}://${raw.headers.host ?? `localhost:${config.port}`}`;
}
