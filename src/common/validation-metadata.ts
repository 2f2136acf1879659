import { getMetadataStorage } from 'class-validator';

/** One of class-validator's rules (a `ValidationMetadata`); only passed along here. */
type ValidationMetadata = object;

type Lookup = (target: object, schema: string | undefined, always: boolean, strictGroups: boolean, groups?: string[]) => ValidationMetadata[];
type Grouping = (metadata: ValidationMetadata[]) => Record<string, ValidationMetadata[]>;

interface Storage {
  getTargetValidationMetadatas: Lookup;
  groupByPropertyName: Grouping;
  addValidationMetadata: (metadata: unknown) => void;
  addConstraintMetadata: (metadata: unknown) => void;
}

const MEMOIZED = Symbol('svc.memoizedValidationMetadata');

/**
 * class-validator looks up the rules of every object it validates anew: it filters the rules of
 * the class, tests the class against every class that has rules (for inherited ones), and groups
 * the result by property. With a few hundred request classes that was the largest part of
 * validating a request (a comment add validates about ten objects). The rules are declared once,
 * by decorators as the classes load, so the answers are kept per class and options, and dropped
 * whenever a rule is added.
 */
export function memoizeValidationMetadata(): void {
  const storage = getMetadataStorage() as unknown as Storage & { [MEMOIZED]?: true };
  if (storage[MEMOIZED]) return;
  storage[MEMOIZED] = true;
  const lookup = storage.getTargetValidationMetadatas.bind(storage);
  const group = storage.groupByPropertyName.bind(storage);
  let found = new Map<object, Map<string, ValidationMetadata[]>>();
  let grouped = new WeakMap<ValidationMetadata[], Record<string, ValidationMetadata[]>>();
  const forget = () => {
    found = new Map();
    grouped = new WeakMap();
  };
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    const key = `${schema ?? ''}\u0000${always}\u0000${strictGroups}\u0000${groups?.join('\u0000') ?? ''}`;
    let byOptions = found.get(target);
    if (!byOptions) found.set(target, (byOptions = new Map()));
    let metadata = byOptions.get(key);
    if (!metadata) byOptions.set(key, (metadata = lookup(target, schema, always, strictGroups, groups)));
    return metadata;
  };
  storage.groupByPropertyName = (metadata) => {
    let byProperty = grouped.get(metadata);
    // Without a prototype: the whitelist looks each key of a request up in this object, and in
    // a plain one `hasOwnProperty` or `isPrototypeOf` found Object's methods and passed as known.
    if (!byProperty) grouped.set(metadata, (byProperty = Object.assign(Object.create(null) as Record<string, ValidationMetadata[]>, group(metadata))));
    return byProperty;
  };
  for (const method of ['addValidationMetadata', 'addConstraintMetadata'] as const) {
    const add = storage[method].bind(storage);
    storage[method] = (metadata) => {
      add(metadata);
      forget();
    };
  }
}
