/** The global validation pipe: DTO classes in, INVALID_ARGUMENT with the field's path from `data` out. */
import { type ArgumentMetadata, ValidationPipe, type ValidationError } from '@nestjs/common';
import { instanceToPlain, plainToInstance, Type, type ClassTransformOptions } from 'class-transformer';
import { EmptyRequest } from '../empty-request.dto.js';
import { ApiError } from '../errors.js';
import { memoizeValidationMetadata } from '../validation-metadata.js';
import { passedWireValueCheck } from '../wire-values.js';
import { UNKNOWN_FIELD } from './checks.js';

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
export function NestedType(type: () => new () => object): PropertyDecorator {
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
