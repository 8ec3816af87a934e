// Schema builders shared by every route. Enums are plain JSON Schema `enum`s so that requests can be
// normalised to lowercase before validation (requests accept any case: docs/api.md#conventions).
import { type TSchema, type TUnsafe, Type } from "@sinclair/typebox";

export function LowercaseEnum<const T extends readonly string[]>(
  values: T,
  description?: string,
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({
    type: "string",
    enum: [...values],
    ...(description ? { description } : {}),
  });
}

export const Timestamp = Type.String({ format: "date-time", description: "ISO 8601 UTC with milliseconds" });

export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

/** Whether a schema node or one below it is an enum, by node: most request bodies have none to lowercase. */
const enumsBelow = new WeakMap<object, boolean>();

function holdsEnum(schema: object): boolean {
  let holds = enumsBelow.get(schema);
  if (holds === undefined) {
    const node = schema as { enum?: unknown; properties?: object; items?: unknown; anyOf?: unknown[] };
    const below = [...Object.values(node.properties ?? {}), node.items, ...(node.anyOf ?? [])];
    holds =
      Array.isArray(node.enum) ||
      below.some((child) => child !== null && typeof child === "object" && holdsEnum(child));
    enumsBelow.set(schema, holds);
  }
  return holds;
}

/** Lowercases, in place, every string value whose schema node is an enum; walks objects, arrays and unions. */
export function lowercaseEnumValues(schema: unknown, value: unknown): unknown {
  if (schema === null || typeof schema !== "object" || !holdsEnum(schema)) return value;
  const node = schema as {
    enum?: unknown[];
    properties?: Record<string, unknown>;
    items?: unknown;
    anyOf?: unknown[];
  };
  if (typeof value === "string") {
    const enums =
      Array.isArray(node.enum) ||
      (node.anyOf?.some((branch) => Array.isArray((branch as { enum?: unknown[] }).enum)) ?? false);
    return enums ? value.toLowerCase() : value;
  }
  if (Array.isArray(value) && node.items !== undefined) {
    for (let i = 0; i < value.length; i++) value[i] = lowercaseEnumValues(node.items, value[i]);
    return value;
  }
  if (value !== null && typeof value === "object" && node.properties !== undefined) {
    const record = value as Record<string, unknown>;
    for (const [key, propertySchema] of Object.entries(node.properties)) {
      if (Object.hasOwn(record, key)) record[key] = lowercaseEnumValues(propertySchema, record[key]);
    }
  }
  if (node.anyOf !== undefined && value !== null && typeof value === "object") {
    for (const branch of node.anyOf) lowercaseEnumValues(branch, value);
  }
  return value;
}
