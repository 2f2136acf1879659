import { Column, type ColumnOptions, type ValueTransformer } from 'typeorm';

/**
 * Column helpers: the one place entity columns differ by dialect. Both engines store
 * epoch-millisecond timestamps as 64-bit integers (PostgreSQL `bigint`, parsed to numbers by
 * the data-source option `parseInt8`; SQLite `integer`), and JSON as text so the same value
 * round-trips identically on both.
 */
export function TimestampColumn(name: string, options: Pick<ColumnOptions, 'nullable'> = {}): PropertyDecorator {
  return Column({ name, type: 'bigint', ...options, transformer: numberTransformer });
}

export function JsonColumn(name: string, options: Pick<ColumnOptions, 'nullable'> = {}): PropertyDecorator {
  return Column({ name, type: 'text', ...options, transformer: jsonTransformer });
}

export function BooleanColumn(name: string, options: Pick<ColumnOptions, 'default'> = {}): PropertyDecorator {
  return Column({ name, type: 'boolean', ...options });
}

export function TextColumn(name: string, options: Pick<ColumnOptions, 'nullable'> = {}): PropertyDecorator {
  return Column({ name, type: 'text', ...options });
}

const numberTransformer: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => (value === null ? null : Number(value)),
};

const jsonTransformer: ValueTransformer = {
  to: (value: unknown) => (value === undefined ? undefined : value === null ? null : JSON.stringify(value)),
  from: (value: string | null) => (value === null ? null : (JSON.parse(value) as unknown)),
};
