import { isEmail } from 'class-validator';

/*
 * The checks the validation rules are made of (`rules.ts`), usable alone for free-form values no
 * property decorator reaches (`checkShape`, `checkItems`).
 */

/** Checks a value; returns the problem (a message without the field name) or undefined. */
export type Check = (value: unknown) => string | undefined;

// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/** Caller-supplied IDs: 1–256 characters, not blank, no control characters (contract 1.1). */
export const checkId: Check = (value) => {
  if (typeof value !== 'string' || value.trim() === '') return 'must be a non-empty string';
  // Ids become keys of per-item results, where this one would set the prototype instead.
  if (value === '__proto__') return 'must not be "__proto__"';
  if (value.length > 256) return 'must be at most 256 characters';
  if (CONTROL_CHARACTERS.test(value)) return 'must not contain control characters';
  return undefined;
};

export function checkString(options: { max?: number; allowEmpty?: boolean } = {}): Check {
  const max = options.max ?? 10_000;
  return (value) => {
    if (typeof value !== 'string') return 'must be a string';
    if (!options.allowEmpty && value.trim() === '') return 'must be a non-empty string';
    if (value.length > max) return `must be at most ${max} characters`;
    return undefined;
  };
}

export const checkBoolean: Check = (value) => (typeof value === 'boolean' ? undefined : 'must be a boolean');

export function checkOneOf(allowed: readonly string[]): Check {
  return (value) => (typeof value === 'string' && allowed.includes(value) ? undefined : `must be one of: ${allowed.join(', ')}`);
}

export function checkInteger(min: number, max: number): Check {
  return (value) =>
    typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max ? undefined : `must be an integer between ${min} and ${max}`;
}

export function checkArrayOf(item: Check, options: { max: number; min?: number; unique?: boolean }): Check {
  return (value) => {
    if (!Array.isArray(value)) return 'must be an array';
    if (value.length < (options.min ?? 0)) return `must contain at least ${options.min} item(s)`;
    if (value.length > options.max) return `must contain at most ${options.max} items`;
    for (let i = 0; i < value.length; i++) {
      const problem = item(value[i]);
      if (problem !== undefined) return within(`[${i}]`, problem);
    }
    if (options.unique && new Set(value).size !== value.length) return 'must not contain duplicates';
    return undefined;
  };
}

export const checkPlainObject: Check = (value) => (typeof value === 'object' && value !== null && !Array.isArray(value) ? undefined : 'must be an object');

/** How a check reports a key it does not know, relative to the value it checked. */
export const UNKNOWN_FIELD = 'Unknown field: ';

/**
 * A nested value's problem seen one step further out (`[2]`, `.userId`): relative paths join
 * (`[2].userId must be …`), an unknown field keeps its contract wording (`Unknown field: [2].foo`).
 */
export function within(step: string, problem: string): string {
  if (problem.startsWith(UNKNOWN_FIELD)) return `${UNKNOWN_FIELD}${step}${problem.slice(UNKNOWN_FIELD.length)}`;
  return /^[[.]/.test(problem) ? `${step}${problem}` : `${step} ${problem}`;
}

/**
 * A plain object with the named fields: `required` ones present, each present one passing its
 * check (`undefined` counts as absent). Any other key is an unknown field, unless `open` (an
 * upstream object whose other keys are kept as sent: a status, an agent block).
 */
export function checkShape(fields: Record<string, Check>, required: readonly string[] = [], options: { open?: boolean } = {}): Check {
  return (value) => {
    const shape = checkPlainObject(value);
    if (shape) return shape;
    const record = value as Record<string, unknown>;
    if (!options.open) for (const key of Object.keys(record)) if (!Object.hasOwn(fields, key)) return `${UNKNOWN_FIELD}.${key}`;
    for (const key of required) if (record[key] === undefined) return `.${key} is required`;
    for (const [key, check] of Object.entries(fields)) {
      if (record[key] === undefined) continue;
      const problem = check(record[key]);
      if (problem !== undefined) return within(`.${key}`, problem);
    }
    return undefined;
  };
}

/**
 * Ids of a batch's items, walked in order: an item whose id (under `field`) repeats an earlier
 * item's is a problem of that item. The one rule for "unique ids in a batch"; a walk that checks
 * more per item (`checkItems`, activities) calls `repeat` in its loop, so its problems keep their
 * order. Only string ids count: others fail their own check.
 */
export class BatchIds {
  private readonly seen = new Map<string, number>();

  constructor(private readonly field: string) {}

  /** Item `index`'s problem (`.id repeats [0].id ("x")`) when its id repeats an earlier item's; otherwise remembers it. */
  repeat(index: number, id: unknown): string | undefined {
    if (typeof id !== 'string') return undefined;
    const first = this.seen.get(id);
    if (first !== undefined) return `.${this.field} repeats [${first}].${this.field} (${JSON.stringify(id)})`;
    this.seen.set(id, index);
    return undefined;
  }
}

/** Items (objects) of an array, each with an id under `field` no other item repeats. */
export function checkUniqueIds(field: string): Check {
  return (value) => {
    if (!Array.isArray(value)) return undefined;
    const ids = new BatchIds(field);
    for (let i = 0; i < value.length; i++) {
      const problem = ids.repeat(i, (value[i] as Record<string, unknown> | null)?.[field]);
      if (problem) return within(`[${i}]`, problem);
    }
    return undefined;
  };
}

/**
 * Items of a batch that may carry caller metadata: a plain object each, with a valid id under
 * `idField` unique within the batch, known fields checked by `known`, and any other key kept as
 * metadata (its value any JSON).
 */
export function checkItems(idField: string, known: Record<string, Check>, max: number): Check {
  return (value) => {
    if (!Array.isArray(value)) return 'must be an array';
    if (value.length === 0) return 'must contain at least 1 item(s)';
    if (value.length > max) return `must contain at most ${max} items`;
    const ids = new BatchIds(idField);
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const shape = checkPlainObject(item);
      if (shape) return `[${i}] ${shape}`;
      const record = item as Record<string, unknown>;
      const idProblem = checkId(record[idField]);
      if (idProblem) return `[${i}].${idField} ${idProblem}`;
      const repeat = ids.repeat(i, record[idField]);
      if (repeat) return within(`[${i}]`, repeat);
      for (const [field, check] of Object.entries(known)) {
        if (record[field] === undefined) continue;
        const problem = check(record[field]);
        if (problem) return `[${i}].${field} ${problem}`;
      }
    }
    return undefined;
  };
}

/** A syntactically valid address (disposable domains are refused by the services, with their own message). */
/**
 * A user object as callers send one (`actionUser`, a comment's `from`, tagged contacts): its
 * `userId`, string `name` and `email` when present, any other field kept as sent.
 */
/** A user as `checkUser` admits one. */
export type WireUser = { userId: string } & Record<string, unknown>;

export const checkUser: Check = (value) => {
  const shape = checkPlainObject(value);
  if (shape) return shape;
  const user = value as Record<string, unknown>;
  if (user.userId === undefined) return '.userId is required';
  const id = checkId(user.userId);
  if (id) return within('.userId', id);
  for (const field of ['name', 'email'] as const) {
    if (user[field] === undefined) continue;
    const problem = checkString({ max: 1000, allowEmpty: true })(user[field]);
    if (problem) return within(`.${field}`, problem);
  }
  return undefined;
};

export const checkEmail: Check = (value) => {
  if (typeof value !== 'string' || value.trim() === '') return 'must be a non-empty string';
  if (value.length > 320 || !isEmail(value.trim())) return 'must be a valid e-mail address';
  return undefined;
};

/** An absolute http(s) URL of at most `max` characters, or `""` (none). */
export function checkHttpUrl(max: number): Check {
  return (value) => {
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
