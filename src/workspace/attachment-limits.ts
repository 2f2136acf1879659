import type { AttachmentSettings } from '../config/app-config.js';

/**
 * A key's own attachment limits (apikeyconfig `attachmentConfig`), kept in its settings. Each
 * narrows the service's (`ATTACHMENT_MAX_BYTES`, `ATTACHMENT_TYPES`), never widens it; unset,
 * the service's applies.
 */
export interface AttachmentConfig {
  maxBytes?: number;
  types?: string[];
}

/** What an upload is checked against: the key's limits within the service's. */
export interface AttachmentLimits {
  maxBytes: number;
  /** The list that refuses `mimeType`, named as the owner would look for it; undefined when both accept it. */
  refusedBy(mimeType: string): 'ATTACHMENT_TYPES' | 'attachmentConfig.types' | undefined;
}

/** A MIME type or a whole type (`image/*`), as `ATTACHMENT_TYPES` and `attachmentConfig.types` hold them. */
export const MIME_PATTERN = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/(\*|[a-z0-9][a-z0-9!#$&^_.+-]*)$/i;

/**
 * The limits of a key: the smaller size, and a type only when both lists accept it (the
 * service's list is checked again at upload, so lowering `ATTACHMENT_TYPES` or
 * `ATTACHMENT_MAX_BYTES` later binds keys that set their own).
 */
export function attachmentLimits(service: Pick<AttachmentSettings, 'maxBytes' | 'types'>, own: AttachmentConfig | undefined): AttachmentLimits {
  return {
    maxBytes: Math.min(service.maxBytes, own?.maxBytes ?? service.maxBytes),
    refusedBy: (mimeType) => {
      if (!typeAccepted(mimeType, service.types)) return 'ATTACHMENT_TYPES';
      if (own?.types && !typeAccepted(mimeType, own.types)) return 'attachmentConfig.types';
      return undefined;
    },
  };
}

/** Whether a list of types accepts the MIME type (`type/*` accepts the whole type; parameters ignored). */
export function typeAccepted(mimeType: string, accepted: readonly string[]): boolean {
  const [type] = mimeType.toLowerCase().split(';');
  return accepted.some((allowed) => (allowed.endsWith('/*') ? type!.trim().startsWith(allowed.slice(0, -1)) : type!.trim() === allowed));
}

/**
 * Whether an entry of a key's list stays within the service's: an exact type the service
 * accepts, or a whole type the service accepts whole (`image/*` is wider than `image/png`).
 */
export function typeWithin(entry: string, service: readonly string[]): boolean {
  return entry.endsWith('/*') ? service.includes(entry) : typeAccepted(entry, service);
}
