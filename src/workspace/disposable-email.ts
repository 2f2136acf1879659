import { disposableDomains } from '../common/optional-modules.js';

/** True when the address's domain is a known throwaway provider (maintained list: `mailchecker`). */
export function isDisposableEmail(email: string): boolean {
  const domain = email.trim().toLowerCase().split('@').pop() ?? '';
  const blocked = disposableDomains();
  // Sub-domains of a listed provider are disposable too.
  const labels = domain.split('.');
  for (let i = 0; i < labels.length - 1; i++) if (blocked.has(labels.slice(i).join('.'))) return true;
  return false;
}
