import MailChecker from 'mailchecker';

/** True when the address's domain is a known throwaway provider (maintained list: `mailchecker`). */
export function isDisposableEmail(email: string): boolean {
  const domain = email.trim().toLowerCase().split('@').pop() ?? '';
  const blocked = MailChecker.blacklist();
  // Sub-domains of a listed provider are disposable too.
  const labels = domain.split('.');
  for (let i = 0; i < labels.length - 1; i++) if (blocked.has(labels.slice(i).join('.'))) return true;
  return false;
}
