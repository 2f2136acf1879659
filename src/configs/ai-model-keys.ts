/** AI model providers upstream's apikeyconfig takes keys for. */
export const AI_PROVIDERS = ['openai', 'anthropic', 'gemini'] as const;
export type AiProvider = (typeof AI_PROVIDERS)[number];

/** A secret as a person may see it again: its first few characters, the rest hidden. */
export function maskSecret(secret: string): string {
  const shown = Math.min(7, Math.floor(secret.length / 4));
  return `${secret.slice(0, shown)}...${'x'.repeat(Math.max(4, Math.min(24, secret.length - shown)))}`;
}
