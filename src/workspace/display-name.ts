/** `jane.doe+x@example.com` → `Jane.doe` (contract part 2: default key names). */
export function displayLocalPart(email: string): string {
  const local = email.trim().split('@')[0]!.split('+')[0]!;
  return local.charAt(0).toUpperCase() + local.slice(1);
}
