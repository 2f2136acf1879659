import { isEmail } from 'class-validator';

/** A syntactically valid address (disposable domains are refused by the services, with their own message). */
export function checkEmail(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return 'must be a non-empty string';
  if (value.length > 320 || !isEmail(value.trim())) return 'must be a valid e-mail address';
  return undefined;
}

export function checkHttpUrl(max: number) {
  return (value: unknown): string | undefined => {
    if (typeof value !== 'string') return 'must be a string';
    if (value === '') return undefined;
    if (value.length > max) return `must be at most ${max} characters`;
    try {
      const url = new URL(value);
      return url.protocol === 'http:' || url.protocol === 'https:' ? undefined : 'must be an http(s) URL';
    } catch {
      return 'must be an http(s) URL';
    }
  };
}
