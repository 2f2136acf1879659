// Times in the viewer's own zone and language (the browser's), never the server's.
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** Epoch milliseconds or an ISO string, as the viewer reads time; "—" when there is none. */
export function when(value: number | string | null | undefined): string {
  if (value === null || value === undefined || value === '' || value === 0) return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : dateTime.format(date);
}

export const viewerZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** A `datetime-local` input's value (the viewer's zone) as an ISO instant. */
export function localInputToIso(value: string): string {
  return new Date(value).toISOString();
}

/** An instant as a `datetime-local` input's value (to the second), in the viewer's zone. */
export function isoToLocalInput(epochMs: number): string {
  const date = new Date(epochMs - new Date(epochMs).getTimezoneOffset() * 60_000);
  return date.toISOString().slice(0, 19);
}
