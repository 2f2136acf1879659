import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { registerDecorator, ValidateIf, ValidateNested, type ValidationArguments, type ValidationOptions } from 'class-validator';
import {
  checkArrayOf,
  checkBoolean,
  checkEmail,
  checkHttpUrl,
  checkId,
  checkInteger,
  checkItems,
  checkOneOf,
  checkPlainObject,
  checkString,
  checkUniqueIds,
  checkUser,
  type Check,
} from './checks.js';
import { NestedType } from './pipe.js';

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

/*
 * The vocabulary of request DTOs: each rule is defined here once, as a decorator built on
 * class-validator, and DTOs use only these. Underneath, every rule is one `Satisfies(check)`: one
 * constraint per field, so a field reports exactly one message, without its name (the pipe puts
 * the path from `data` in front), and the same checks compose into the shapes of free-form items
 * (`checkShape`, `checkItems`) that no property decorator reaches. class-validator's built-in
 * decorators would each add a constraint with their own wording. A field whose rule is its own
 * (a cross-field condition, a domain format) writes it as a check in its DTO file and uses
 * `Satisfies` directly. Each named rule also states its field in the OpenAPI document (required
 * or not, its type, and the limits it checks: lengths, item counts, enums, integer bounds), so a
 * DTO writes an `@ApiProperty` only for what the rule cannot know: a description, an example.
 * Decorators merge, the DTO's (written above the rule, so applied after it) winning.
 */

/** A rule with its field's OpenAPI facts: required (`ApiProperty`) or optional (`ApiPropertyOptional`). */
const documented = (rule: PropertyDecorator, required: boolean, facts: ApiPropertyOptions = {}): PropertyDecorator =>
  applyDecorators(required ? ApiProperty(facts) : ApiPropertyOptional(facts), rule);

/**
 * Optional means absent: `undefined` skips the field's checks, while an explicit `null` or
 * `""` is still validated (the contract refuses e.g. `persistenceDBRegion: ""`). `nullable`:
 * `null` is skipped as well (an update clearing a field).
 */
export const Optional = (options: { nullable?: boolean } = {}) =>
  ValidateIf((_object: object, value: unknown) => value !== undefined && !(options.nullable === true && value === null));

const optional = (rule: PropertyDecorator, facts: ApiPropertyOptions = {}) => documented(applyDecorators(Optional(), rule), false, facts);

/** An ID (contract 1.1). */
export const IsId = () => documented(Satisfies(checkId), true);
/** An optional ID field (absent is fine; `null` or `""` is not). */
export const IsOptionalId = () => optional(Satisfies(checkId));

/** A string of at most `max` characters; not blank unless `allowEmpty`. */
export const IsText = (max: number, options: { allowEmpty?: boolean } = {}) =>
  documented(Satisfies(checkString({ max, ...options })), true, { maxLength: max });
export const IsOptionalText = (max: number, options: { allowEmpty?: boolean } = {}) =>
  optional(Satisfies(checkString({ max, ...options })), { maxLength: max });

export const IsBool = () => documented(Satisfies(checkBoolean), true);
export const IsOptionalBool = () => optional(Satisfies(checkBoolean));

/** An integer from `min` to `max`. */
export const IsInteger = (min: number, max: number) => documented(Satisfies(checkInteger(min, max)), true, integerFacts(min, max));
export const IsOptionalInteger = (min: number, max: number) => optional(Satisfies(checkInteger(min, max)), integerFacts(min, max));
/** An integer's type and bounds; not the safe-integer ceiling every timestamp has, which tells a caller nothing. */
const integerFacts = (minimum: number, maximum: number): ApiPropertyOptions => ({
  type: 'integer',
  minimum,
  ...(maximum < Number.MAX_SAFE_INTEGER ? { maximum } : {}),
});

/** One of `values` (an enum). */
export const IsOneOf = (values: readonly string[]) => documented(Satisfies(checkOneOf(values)), true, { enum: [...values] });
export const IsOptionalOneOf = (values: readonly string[]) => optional(Satisfies(checkOneOf(values)), { enum: [...values] });

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
export const IsIdArray = (max: number, options: ArrayOptions = {}) =>
  documented(Satisfies(checkArrayOf(checkId, { max, ...options })), true, { type: [String], maxItems: max });
export const IsOptionalIdArray = (max: number, options: ArrayOptions = {}) =>
  optional(Satisfies(checkArrayOf(checkId, { max, ...options })), { type: [String], maxItems: max });

/** An array of strings of at most `itemMax` characters each (not blank), at most `max` of them. */
export const IsTextArray = (itemMax: number, options: ArrayOptions & { max: number }) => Satisfies(checkArrayOf(checkString({ max: itemMax }), options));
export const IsOptionalTextArray = (itemMax: number, options: ArrayOptions & { max: number }) => optional(IsTextArray(itemMax, options));

/**
 * A batch whose items may carry caller metadata (see `checkItems`): each keyed by a unique id
 * under `idField`, with its `known` fields checked.
 */
export const IsBatchWithMetadata = (idField: string, known: Record<string, Check>, max: number) => Satisfies(checkItems(idField, known, max));

/** A nested DTO: an object, validated by its class. */
const nested = (type: () => new () => object) => applyDecorators(Satisfies(checkPlainObject), ValidateNested(), NestedType(type));
// `type: () => …` as an object property: @nestjs/swagger takes a function named `type` as a lazy type.
export const NestedObject = (type: () => new () => object) => documented(nested(type), true, { type: () => type() });
export const OptionalNestedObject = (type: () => new () => object) => optional(nested(type), { type: () => type() });

/**
 * An array of nested DTOs, validated item by item, at most `max`; `uniqueIds`: the field of each
 * item whose value no other item may repeat (see `BatchIds`). One check, so one message: the
 * array's size before its items, as `checkArrayOf` and `checkItems` have it. An item that is not
 * an object (`folders: [[]]`) is refused here: class-transformer would make it an empty instance.
 */
export function IsNestedArray(type: () => new () => object, max: number, options: { min?: number; uniqueIds?: string } = {}): PropertyDecorator {
  const unique = options.uniqueIds === undefined ? undefined : checkUniqueIds(options.uniqueIds);
  return applyDecorators(
    ApiProperty({ type: () => [type()], maxItems: max }),
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
