/**
 * docs/reference/operations.md, rendered from the OpenAPI document: every operation with its
 * credentials, its request fields and their rules, what its success answer holds and its error
 * statuses. The document is built from the controllers and the validation rules, so the
 * reference says what the service enforces and cannot drift from it (a test compares them).
 */

type Schema = {
  $ref?: string;
  type?: string;
  format?: string;
  description?: string;
  enum?: unknown[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  default?: unknown;
};

type Operation = {
  summary?: string;
  description?: string;
  tags?: string[];
  deprecated?: boolean;
  security?: Record<string, string[]>[];
  parameters?: { $ref?: string; name?: string; in?: string; required?: boolean }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses: Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }>;
};

export type OpenApiDocument = {
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, Schema>;
    parameters?: Record<string, { name?: string; in?: string; required?: boolean }>;
    securitySchemes?: Record<string, { name?: string; in?: string; description?: string }>;
  };
};

/** How deep nested fields are listed; deeper ones are named by their type. */
const DEPTH = 4;

export function renderApiReference(document: OpenApiDocument): string {
  const resolve = (schema: Schema | undefined): Schema => {
    let current = schema ?? {};
    for (let hops = 0; current.$ref && hops < 10; hops++) current = document.components.schemas[current.$ref.split('/').pop()!] ?? {};
    if (current.allOf?.length === 1) return { ...resolve(current.allOf[0]), ...withoutKeys(current, ['allOf']) };
    return current;
  };
  const typeOf = (raw: Schema): string => {
    const schema = resolve(raw);
    if (schema.oneOf || schema.anyOf) return (schema.oneOf ?? schema.anyOf)!.map(typeOf).join(' or ');
    if (schema.type === 'array') return `array of ${typeOf(schema.items ?? {})}`;
    if (schema.enum) return schema.type ?? 'string';
    if (schema.type === 'object' || schema.properties) {
      if (!schema.properties && typeof schema.additionalProperties === 'object') return `map of ${typeOf(schema.additionalProperties)}`;
      return 'object';
    }
    return schema.format ? `${schema.type} (${schema.format})` : (schema.type ?? 'any');
  };
  const rules = (raw: Schema): string => {
    const schema = resolve(raw);
    const parts: string[] = [];
    if (schema.enum) parts.push(`one of ${schema.enum.map((value) => `\`${String(value)}\``).join(', ')}`);
    const range = (min: number | undefined, max: number | undefined, unit: string) => {
      if (min !== undefined && max !== undefined) parts.push(`${min}–${max}${unit}`);
      else if (min !== undefined) parts.push(`at least ${min}${unit}`);
      else if (max !== undefined) parts.push(`at most ${max}${unit}`);
    };
    range(schema.minLength, schema.maxLength, ' characters');
    range(schema.minItems, schema.maxItems, ' items');
    range(schema.minimum, schema.maximum, '');
    if (schema.pattern) parts.push(`matches \`${schema.pattern}\``);
    if (schema.default !== undefined) parts.push(`default \`${JSON.stringify(schema.default)}\``);
    if (schema.nullable) parts.push('may be null');
    if (schema.description) parts.push(oneLine(schema.description));
    return parts.join('; ');
  };
  /** The fields of an object schema, nested ones with dotted names and `[]` for array items. */
  const fields = (raw: Schema, prefix: string, depth: number): string[][] => {
    const schema = resolve(raw);
    const rows: string[][] = [];
    const required = new Set(schema.required ?? []);
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      const path = `${prefix}${name}`;
      rows.push([`\`${path}\``, typeOf(property), required.has(name) ? 'yes' : '', rules(property)]);
      if (depth >= DEPTH) continue;
      const inner = resolve(property);
      if (inner.properties) rows.push(...fields(inner, `${path}.`, depth + 1));
      else if (inner.type === 'array' && resolve(inner.items).properties) rows.push(...fields(resolve(inner.items), `${path}[].`, depth + 1));
      else if (!inner.properties && typeof inner.additionalProperties === 'object' && resolve(inner.additionalProperties).properties)
        rows.push(...fields(resolve(inner.additionalProperties), `${path}.<key>.`, depth + 1));
    }
    return rows;
  };
  const table = (rows: string[][], header: string[]) =>
    [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`)].join('\n');
  const credentials = (operation: Operation): string => {
    const schemes = document.components.securitySchemes ?? {};
    const options = (operation.security ?? []).filter((option) => Object.keys(option).length > 0);
    if (!options.length) return 'none (public)';
    return options
      .map((option) =>
        Object.keys(option)
          .map((name) => `\`${schemes[name]?.name ?? name}\``)
          .join(' + '),
      )
      .join(', or ');
  };

  const byTag = new Map<string, [string, Operation][]>();
  for (const [path, methods] of Object.entries(document.paths))
    for (const [method, operation] of Object.entries(methods)) {
      if (method !== 'post') continue;
      const tag = operation.tags?.[0] ?? 'other';
      byTag.set(tag, [...(byTag.get(tag) ?? []), [path, operation]]);
    }

  const out: string[] = [
    '# Operations',
    '',
    '<!-- Generated from openapi.json by `npm run openapi` (test/tools/api-reference.ts): edit the controllers, DTOs and rules, not this file. -->',
    '',
    'Every operation of the service, by area, with the credentials it takes, its request fields',
    "(inside `data`) with the rules the service enforces on them, the fields of its success answer's",
    '`result.data`, and its error statuses. The envelope, the error codes and the credential',
    "headers are in [conventions](conventions.md); what the service does beyond a field's rules is in",
    '[rules](rules.md), the guides, and [compatibility](../compatibility.md). Header names use the',
    'default product part `svc` (`HEADER_PRODUCT`).',
    '',
    ...[...byTag.keys()].map((tag) => `- [${tag}](#${anchor(tag)}) (${byTag.get(tag)!.length})`),
  ];
  for (const [tag, operations] of byTag) {
    out.push('', `## ${tag}`);
    for (const [path, operation] of operations) {
      out.push('', `### \`POST ${path}\``, '');
      if (operation.summary) out.push(oneLine(operation.summary), '');
      if (operation.description) out.push(operation.description.trim(), '');
      if (operation.deprecated) out.push('Deprecated.', '');
      out.push(`Credentials: ${credentials(operation)}.`, '');
      const headers = (operation.parameters ?? [])
        .map((parameter) => (parameter.$ref ? document.components.parameters?.[parameter.$ref.split('/').pop()!] : parameter))
        .filter((parameter) => parameter?.in === 'header')
        .map((parameter) => `\`${parameter!.name}\`${parameter!.required ? '' : ' (optional)'}`);
      if (headers.length) out.push(`Headers: ${headers.join(', ')} (see [conventions](conventions.md)).`, '');
      const body = resolve(operation.requestBody?.content?.['application/json']?.schema);
      const data = body.properties?.data;
      const requestRows = data ? fields(data, '', 1) : [];
      if (requestRows.length) out.push('Request `data`:', '', table(requestRows, ['field', 'type', 'required', 'rules']), '');
      else if (operation.requestBody?.content?.['multipart/form-data']) out.push('Request: `multipart/form-data` (see the guide).', '');
      else out.push('Request `data`: `{}` (no fields).', '');
      const success = Object.entries(operation.responses).find(([status]) => status.startsWith('2'));
      if (success) {
        const result = resolve(resolve(success[1].content?.['application/json']?.schema).properties?.result);
        const answer = result.properties?.data;
        const extra = Object.keys(result.properties ?? {}).filter((name) => !['status', 'message', 'data'].includes(name));
        const answerRows = answer ? fields(answer, '', 1) : [];
        const shape = answer ? typeOf(answer) : 'no `data`';
        out.push(
          `Answer (HTTP ${success[0]}): \`result.data\` is ${shape}${extra.length ? `; \`result\` also has ${extra.map((name) => `\`${name}\``).join(', ')}` : ''}.`,
        );
        if (answerRows.length) out.push('', table(answerRows, ['field', 'type', 'always', 'notes']));
        out.push('');
      }
      const errors = Object.entries(operation.responses).filter(([status]) => !status.startsWith('2'));
      if (errors.length) out.push('Errors:', '', ...errors.map(([status, response]) => `- ${status}: ${oneLine(response.description ?? '')}`));
    }
  }
  return `${out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}

function withoutKeys(schema: Schema, keys: (keyof Schema)[]): Schema {
  const copy = { ...schema };
  for (const key of keys) delete copy[key];
  return copy;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-');
}
