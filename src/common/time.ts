/** Unix seconds, the unit of `expiresAt` (rest-interface convention 6). */
export function unixSeconds(ms = Date.now()): number {
  return Math.floor(ms / 1000);
}
