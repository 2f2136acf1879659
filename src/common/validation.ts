import { type ArgumentMetadata, ValidationPipe, type ValidationError } from '@nestjs/common';
import { instanceToPlain, plainToInstance, Type, type ClassTransformOptions } from 'class-transformer';
import { isEmail, registerDecorator, ValidateIf, ValidateNested, type ValidationArguments, type ValidationOptions } from 'class-validator';
import { applyDecorators } from '@nestjs/common';
import { EmptyRequest } from './empty-request.dto.js';
import { ApiError } from './errors.js';
import { memoizeValidationMetadata } from './validation-metadata.js';
import { passedWireValueCheck } from './wire-values.js';

/** How many validation problems `details.issues` lists at most. */
const MAX_ISSUES = 20;

export interface ValidationIssue {
  path: string;
  message: string;
}

/**
 * The global pipe: strict types (no implicit conversion), unknown fields refused, and every
 * failure turned into INVALID_ARGUMENT whose message names the field path from `data`.
 */
export function createValidationPipe(): ValidationPipe {
  memoizeValidationMetadata();
  return new RequestValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: false,
    validateCustomDecorators: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    transformerPackage: {
      plainToInstance: toRequestInstance as <T>(cls: new () => T, plain: unknown, options?: ClassTransformOptions) => T,
      classToPlain: instanceToPlain,
    },
    exceptionFactory: (errors) => {
      const issues = flattenValidationErrors(errors, 'data');
      const first = issues[0] ?? { path: 'data', message: 'data is invalid' };
      return new ApiError('INVALID_ARGUMENT', first.message, { issues: issues.slice(0, MAX_ISSUES) });
    },
  });
}

/** Request classes holding a nested DTO (directly or by inheritance); see `NestedType`. */
const CLASSES_WITH_NESTED = new WeakSet<object>();

/**
 * class-transformer's `Type`, also recording that the class holds a nested DTO. Only such
 * classes need class-transformer's deep copy; the others become instances by a shallow copy,
 * which for a batch of 500 activities with free-form objects saves copying every one of them.
 * The value itself is checked by the decorator using this (`NestedObject`, `IsNestedArray`).
 */
function NestedType(type: () => new () => object): PropertyDecorator {
  const decorate = Type(type);
  return (target, property) => {
    CLASSES_WITH_NESTED.add(target.constructor);
    decorate(target, property);
  };
}

function holdsNested(cls: object | null): boolean {
  for (let current = cls; current && current !== Function.prototype; current = Object.getPrototypeOf(current) as object | null)
    if (CLASSES_WITH_NESTED.has(current)) return true;
  return false;
}

/** Request instances made from values that passed `wireValueProblem` (see `RequestValidationPipe`). */
const FROM_CHECKED_VALUES = new WeakSet<object>();

function toRequestInstance(cls: new () => object, plain: unknown, options?: ClassTransformOptions): unknown {
  const instance: unknown =
    holdsNested(cls) || typeof plain !== 'object' || plain === null || Array.isArray(plain)
      ? plainToInstance(cls, plain, options)
      : Object.assign(Object.create(cls.prototype) as object, plain);
  if (passedWireValueCheck(plain) && typeof instance === 'object' && instance !== null) FROM_CHECKED_VALUES.add(instance);
  return instance;
}

/**
 * Operations that take no fields skip class-transformer entirely: any key is an unknown field.
 * The pipe walks every value three more times, for gaps in arrays, binary values and the keys
 * `__proto__`, `constructor` and `prototype`. A value that passed `wireValueProblem` (which
 * `@RequestData()` and the CLI run first, refusing all three with the field named) holds none:
 * for it those walks are skipped; any other value gets them.
 */
class RequestValidationPipe extends ValidationPipe {
  protected override closeArrayGaps(value: unknown): void {
    if (!passedWireValueCheck(value)) super.closeArrayGaps(value);
  }

  protected override stripProtoKeys(value: unknown): void {
    if (!passedWireValueCheck(value)) super.stripProtoKeys(value);
  }

  protected override findNestedBinaryValues(object: any, metadataCache?: Map<unknown, any[]>): ValidationError[] {
    return FROM_CHECKED_VALUES.has(object) ? [] : super.findNestedBinaryValues(object, metadataCache);
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.metatype === EmptyRequest && typeof value === 'object' && value !== null) {
      const unknown = Object.keys(value)[0];
      if (unknown === undefined) return value;
      const path = `data.${unknown}`;
      throw new ApiError('INVALID_ARGUMENT', `Unknown field: ${path}`, { issues: [{ path, message: `Unknown field: ${path}` }] });
    }
    return super.transform(value, metadata);
  }
}

export function flattenValidationErrors(errors: ValidationError[], parentPath: string): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const error of errors) {
    const path = /^\d+$/.test(error.property) ? `${parentPath}[${error.property}]` : `${parentPath}.${error.property}`;
    const constraints = error.constraints ?? {};
    // class-validator's generic nested-type message only when no check of ours said more.
    const { nestedValidation, ...specific } = constraints;
    if (constraints.whitelistValidation !== undefined) {
      issues.push({ path, message: `Unknown field: ${path}` });
    } else if (nestedValidation !== undefined && Object.keys(specific).length === 0) {
      issues.push({ path, message: `${path} must be an object or an array of objects` });
    } else {
      // Our own decorators write messages without the property name; class-validator's
      // built-in ones start with it, which the full path replaces.
      const first = Object.values(specific)[0];
      if (first?.startsWith(UNKNOWN_FIELD)) {
        issues.push({ path, message: `${UNKNOWN_FIELD}${path}${first.slice(UNKNOWN_FIELD.length)}` });
      } else if (first !== undefined) {
        const withoutProperty = first.startsWith(`${error.property} `) ? first.slice(error.property.length + 1) : first;
        // Item problems (`[2].userId must be …`) continue the path: data.users[2].userId.
        issues.push({ path, message: /^[[.]/.test(withoutProperty) ? `${path}${withoutProperty}` : `${path} ${withoutProperty}` });
      }
    }
    if (error.children?.length) issues.push(...flattenValidationErrors(error.children, path));
  }
  return issues;
}

/** Checks a value; returns the problem (a message without the field name) or undefined. */
export type Check = (value: unknown) => string | undefined;

/** One decorator from one check, so each field reports exactly one precise message. */
export function Satisfies(check: Check, options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'satisfies',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown) => check(value) === undefined,
        defaultMessage: (args?: ValidationArguments) => check(args?.value) ?? 'is invalid',
      },
    });
  };
}

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
const UNKNOWN_FIELD = 'Unknown field: ';

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

/*
 * The vocabulary of request DTOs: each rule is defined here once, as a decorator built on
 * class-validator, and DTOs use only these. Underneath, every rule is one `Satisfies(check)`: one
 * constraint per field, so a field reports exactly one message, without its name (the pipe puts
 * the path from `data` in front), and the same checks compose into the shapes of free-form items
 * (`checkShape`, `checkItems`) that no property decorator reaches. class-validator's built-in
 * decorators would each add a constraint with their own wording. A field whose rule is its own
 * (a cross-field condition, a domain format) writes it as a check in its DTO file and uses
 * `Satisfies` directly. The OpenAPI side stays in the DTO's `@ApiProperty` beside the rule: what a
 * field documents is not always what the rule checks (descriptions, lengths left undocumented).
 */

/**
 * Optional means absent: `undefined` skips the field's checks, while an explicit `null` or
 * `""` is still validated (the contract refuses e.g. `persistenceDBRegion: ""`). `nullable`:
 * `null` is skipped as well (an update clearing a field).
 */
export const Optional = (options: { nullable?: boolean } = {}) =>
  ValidateIf((_object: object, value: unknown) => value !== undefined && !(options.nullable === true && value === null));

const optional = (rule: PropertyDecorator) => applyDecorators(Optional(), rule);

/** An ID (contract 1.1). */
export const IsId = () => Satisfies(checkId);
/** An optional ID field (absent is fine; `null` or `""` is not). */
export const IsOptionalId = () => optional(IsId());

/** A string of at most `max` characters; not blank unless `allowEmpty`. */
export const IsText = (max: number, options: { allowEmpty?: boolean } = {}) => Satisfies(checkString({ max, ...options }));
export const IsOptionalText = (max: number, options: { allowEmpty?: boolean } = {}) => optional(IsText(max, options));

export const IsBool = () => Satisfies(checkBoolean);
export const IsOptionalBool = () => optional(IsBool());

/** An integer from `min` to `max`. */
export const IsInteger = (min: number, max: number) => Satisfies(checkInteger(min, max));
export const IsOptionalInteger = (min: number, max: number) => optional(IsInteger(min, max));

/** One of `values` (an enum). */
export const IsOneOf = (values: readonly string[]) => Satisfies(checkOneOf(values));
export const IsOptionalOneOf = (values: readonly string[]) => optional(IsOneOf(values));

export const IsEmailAddress = () => Satisfies(checkEmail);

/** A user object (`checkUser`). */
export const IsUser = () => Satisfies(checkUser);
export const IsOptionalUser = () => optional(IsUser());

/** A free-form JSON object kept as sent (context, custom data). */
export const IsOptionalPlainObject = () => optional(Satisfies(checkPlainObject));
/** An absolute http(s) URL of at most `max` characters; `""` means none. */
export const IsOptionalHttpUrl = (max: number) => optional(Satisfies(checkHttpUrl(max)));

interface ArrayOptions {
  /** Fewest items (default 0). */
  min?: number;
  /** Refuse repeated values (`must not contain duplicates`). */
  unique?: boolean;
}

/** An array of IDs, at most `max` (contract 1.5). */
export const IsIdArray = (max: number, options: ArrayOptions = {}) => Satisfies(checkArrayOf(checkId, { max, ...options }));
export const IsOptionalIdArray = (max: number, options: ArrayOptions = {}) => optional(IsIdArray(max, options));

/** An array of strings of at most `itemMax` characters each (not blank), at most `max` of them. */
export const IsTextArray = (itemMax: number, options: ArrayOptions & { max: number }) => Satisfies(checkArrayOf(checkString({ max: itemMax }), options));
export const IsOptionalTextArray = (itemMax: number, options: ArrayOptions & { max: number }) => optional(IsTextArray(itemMax, options));

/**
 * A batch whose items may carry caller metadata (see `checkItems`): each keyed by a unique id
 * under `idField`, with its `known` fields checked.
 */
export const IsBatchWithMetadata = (idField: string, known: Record<string, Check>, max: number) => Satisfies(checkItems(idField, known, max));

/** A nested DTO: an object, validated by its class. */
export const NestedObject = (type: () => new () => object) => applyDecorators(Satisfies(checkPlainObject), ValidateNested(), NestedType(type));
export const OptionalNestedObject = (type: () => new () => object) => optional(NestedObject(type));

/**
 * An array of nested DTOs, validated item by item, at most `max`; `uniqueIds`: the field of each
 * item whose value no other item may repeat (see `BatchIds`). One check, so one message: the
 * array's size before its items, as `checkArrayOf` and `checkItems` have it. An item that is not
 * an object (`folders: [[]]`) is refused here: class-transformer would make it an empty instance.
 */
export function IsNestedArray(type: () => new () => object, max: number, options: { min?: number; uniqueIds?: string } = {}): PropertyDecorator {
  const unique = options.uniqueIds === undefined ? undefined : checkUniqueIds(options.uniqueIds);
  return applyDecorators(
    Satisfies((value) => {
      // A value that is no object at all is named as such, one that is an object as no array.
      if (!Array.isArray(value)) return typeof value === 'object' && value !== null ? 'must be an array' : 'must be an object';
      if (value.length < (options.min ?? 0)) return `must contain at least ${options.min} item(s)`;
      if (value.length > max) return `must contain at most ${max} items`;
      const index = value.findIndex((item) => typeof item !== 'object' || item === null || Array.isArray(item));
      if (index !== -1) return `[${index}] must be an object`;
      return unique?.(value);
    }),
    ValidateNested({ each: true }),
    NestedType(type),
  );
}
