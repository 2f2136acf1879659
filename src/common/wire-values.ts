/** How deep a request's `data` may nest (objects and arrays), counting `data` itself as 1. */
export const MAX_NESTING = 64;

/** Keys that name an object's prototype machinery rather than data: class-transformer and assignment treat them specially. */
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Values `wireValueProblem` found nothing wrong with (see `passedWireValueCheck`). */
const PASSED = new WeakSet<object>();

/**
 * Whether this very object passed `wireValueProblem`: it holds no prototype keys, no gaps in its
 * arrays and no binary values anywhere, so the validation pipe need not look for them again.
 */
export function passedWireValueCheck(value: unknown): boolean {
  return typeof value === 'object' && value !== null && PASSED.has(value);
}

interface Visit {
  value: unknown;
  depth: number;
  /** The path's last step (`.name` or `[3]`) and the visit it came from, built into a path only on a problem. */
  step: string;
  parent: Visit | undefined;
}

/**
 * What no field of any operation may hold, checked over the whole of `data` before any field's
 * own rule (rest-interface convention: bad input is INVALID_ARGUMENT naming the field, never a
 * 500): nesting deeper than `MAX_NESTING` (deep values overflow the stack of the validators and
 * serialisers after this), NUL characters (PostgreSQL text cannot hold them), unpaired UTF-16
 * surrogates (not Unicode; they break e-mail and URL checks), and the keys `__proto__`,
 * `constructor` and `prototype` (they would be dropped or turned into prototype changes rather
 * than stored). Iterative, so no input can exhaust the stack here. Returns the problem with the
 * field's path, or `undefined`.
 */
export function wireValueProblem(data: unknown): string | undefined {
  const stack: Visit[] = [{ value: data, depth: 1, step: 'data', parent: undefined }];
  while (stack.length) {
    const visit = stack.pop()!;
    const { value } = visit;
    if (typeof value === 'string') {
      const problem = stringProblem(value);
      if (problem) return `${pathOf(visit)} ${problem}`;
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (visit.depth > MAX_NESTING) return `${pathOf(visit)} is nested too deeply (at most ${MAX_NESTING} levels)`;
    // JSON has neither; a caller building values in code (the CLI) must not bring them either.
    if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return `${pathOf(visit)} must be JSON data, not binary`;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) {
        if (!(i in value)) return `${pathOf(visit)}[${i}] is missing (an array must not have gaps)`;
        stack.push({ value: value[i], depth: visit.depth + 1, step: `[${i}]`, parent: visit });
      }
      continue;
    }
    for (const key of Object.keys(value)) {
      if (RESERVED_KEYS.has(key)) return `${pathOf(visit)}.${key}: the key ${key} is not allowed`;
      const problem = stringProblem(key);
      if (problem) return `${pathOf(visit)} has a key that ${problem}`;
      stack.push({ value: (value as Record<string, unknown>)[key], depth: visit.depth + 1, step: `.${key}`, parent: visit });
    }
  }
  if (typeof data === 'object' && data !== null) PASSED.add(data);
  return undefined;
}

function stringProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain NUL characters';
  // `isWellFormed` is in Node 20, though not yet in the ES2023 typings.
  if (!(text as string & { isWellFormed(): boolean }).isWellFormed()) return 'must be valid Unicode (it holds an unpaired surrogate)';
  return undefined;
}

/** The longest path a message spells out; a deeper one keeps its start and end. */
const MAX_PATH = 160;

function pathOf(visit: Visit): string {
  const steps: string[] = [];
  for (let at: Visit | undefined = visit; at; at = at.parent) steps.push(at.step);
  const path = steps.reverse().join('');
  return path.length <= MAX_PATH ? path : `${path.slice(0, MAX_PATH - 40)}…${path.slice(-39)}`;
}
