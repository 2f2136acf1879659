import { createCipheriv, createHmac, constants, publicEncrypt, randomBytes, type KeyObject } from 'node:crypto';
import { parsePublicKey } from '../configs/public-key.js';
import type { OutboxEvent } from './outbox-event.js';

/** A user the processed basic webhook names, with the channels whose preference selects the event. */
export interface NotifyUser {
  userId: string;
  name?: string | null;
  email?: string | null;
  channels: string[];
}

/** The payload options both webhook kinds share (contract 6.3). */
export interface PayloadOptions {
  encodeData: boolean;
  encryptData: boolean;
  /** Base64 DER of an RSA public key; '' when none. */
  publicKey: string;
  enableDataProtection: boolean;
}

const PLATFORM = 'sdk';

/**
 * Body of a basic webhook (contract 6.3); the processed URL's adds `notifyUsers`. `activity`
 * holds the record the event is about (a CRDT write's editor record, for `crdt.update_data`).
 */
export function basicPayload(messageId: string, apiKeyId: string, event: OutboxEvent, notifyUsers?: NotifyUser[]): Record<string, unknown> {
  return {
    webhookId: messageId,
    actionType: event.type,
    notificationSource: event.source,
    actionUser: event.actionUser,
    metadata: { apiKey: apiKeyId, organizationId: event.organizationId, documentId: event.documentId },
    platform: PLATFORM,
    activity: event.data,
    ...(notifyUsers ? { notifyUsers } : {}),
  };
}

/** Body of an advanced webhook (contract 6.3): `event` is the type `filterTypes` match. */
export function advancedPayload(messageId: string, event: OutboxEvent): Record<string, unknown> {
  return { event: event.type, actionType: event.type, source: event.source, data: event.data, webhookId: messageId, platform: PLATFORM };
}

/**
 * The body as sent: data protection first, then encrypted (`{ encryptedData, encryptedKey, iv }`)
 * or base64-encoded (`{ encodedPayload }`), else plain JSON.
 */
export function wirePayload(payload: Record<string, unknown>, options: PayloadOptions): string {
  const json = JSON.stringify(options.enableDataProtection ? withoutPersonalData(payload) : payload);
  if (options.encryptData && options.publicKey) return JSON.stringify(encryptPayload(json, publicKeyOf(options.publicKey)));
  if (options.encodeData) return JSON.stringify({ encodedPayload: Buffer.from(json, 'utf8').toString('base64') });
  return json;
}

/**
 * `enableDataProtection`: e-mail addresses and users' names leave the payload, user ids stay.
 * Every `email` key goes, and `name` from every object that names a user (has a `userId`).
 */
export function withoutPersonalData(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutPersonalData);
  if (typeof value !== 'object' || value === null) return value;
  const isUser = typeof (value as Record<string, unknown>).userId === 'string';
  const copy: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (key === 'email' || (isUser && key === 'name')) continue;
    copy[key] = withoutPersonalData(entry);
  }
  return copy;
}

/**
 * AES-256-CBC under a fresh 32-byte key and 16-byte IV; the key wrapped with RSA-OAEP (SHA-256)
 * under the receiver's public key; all base64 (contract 6.3).
 */
export function encryptPayload(json: string, publicKey: KeyObject): { encryptedData: string; encryptedKey: string; iv: string } {
  const key = randomBytes(32);
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-cbc', key, iv);
  const encryptedData = Buffer.concat([cipher.update(json, 'utf8'), cipher.final()]).toString('base64');
  const encryptedKey = publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, key).toString('base64');
  return { encryptedData, encryptedKey, iv: iv.toString('base64') };
}

/**
 * Standard Webhooks signature (contract 6.3): `v1,` and the base64 HMAC-SHA256 of
 * `id.timestamp.body` under the secret's bytes (the base64 after `whsec_`).
 */
export function signature(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** Parsed keys, so each delivery does not parse DER again; keys are few and rarely change. */
const publicKeys = new Map<string, KeyObject>();
const MAX_CACHED_KEYS = 1000;

function publicKeyOf(base64: string): KeyObject {
  let key = publicKeys.get(base64);
  if (!key) {
    key = parsePublicKey(base64);
    // Configs are validated on save, so a key that does not parse means a corrupted row.
    if (!key) throw new Error('The stored publicKey is not an RSA public key.');
    if (publicKeys.size >= MAX_CACHED_KEYS) publicKeys.clear();
    publicKeys.set(base64, key);
  }
  return key;
}
