/**
 * What the real Chat Completions API refuses, as the fake plays it: a `json_schema`
 * response format outside the strict structured-outputs subset, and request fields a model
 * does not take. Kept apart from the digester's request builder on purpose: the fake
 * stands for the API, so a schema that breaks the rules fails against it instead of
 * agreeing with itself.
 *
 * The strict subset, as OpenAI documents it: the root is an object (not `anyOf`); every
 * object sets `additionalProperties: false` and lists every key of `properties` in
 * `required` (an optional field is a union with `null`); the composition and object or
 * array keywords below are not permitted; at most 10 levels of nesting and 5,000 object
 * properties in all. The messages follow the API's wording for each case.
 */

/** A refusal as the API answers it: the status and the body's `error` object. */
export interface ApiRefusal {
  readonly status: 400 | 404;
  readonly error: {
    readonly message: string;
    readonly type: "invalid_request_error";
    readonly param: string | null;
    readonly code: string | null;
  };
}

const NOT_PERMITTED = [
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "dependentRequired",
  "dependentSchemas",
  "patternProperties",
  "unevaluatedProperties",
  "propertyNames",
  "minProperties",
  "maxProperties",
  "unevaluatedItems",
  "contains",
  "minContains",
  "maxContains",
  "uniqueItems",
];
const MAX_DEPTH = 10;
const MAX_PROPERTIES = 5_000;
const NAME = /^[A-Za-z0-9_-]{1,64}$/;

type Schema = Record<string, unknown>;

function isObject(value: unknown): value is Schema {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function contextOf(path: readonly string[]): string {
  return `(${path.map((part) => `'${part}'`).join(", ")}${path.length === 1 ? "," : ""})`;
}

/** The first rule of the strict subset `schema` breaks, as the API words it, or undefined. */
export function strictSchemaProblem(schema: unknown): string | undefined {
  if (!isObject(schema) || schema.type !== "object")
    return "schema must be a JSON Schema of 'type: \"object\"', got 'type: \"None\"'.";
  if (schema.anyOf !== undefined) return "In context=(), 'anyOf' is not permitted at the root.";
  let properties = 0;
  const walk = (node: unknown, path: string[], depth: number): string | undefined => {
    if (!isObject(node)) return undefined;
    for (const keyword of NOT_PERMITTED) {
      if (node[keyword] !== undefined) return `In context=${contextOf(path)}, '${keyword}' is not permitted.`;
    }
    const types = Array.isArray(node.type) ? node.type : [node.type];
    if (types.includes("object") || isObject(node.properties)) {
      if (depth > MAX_DEPTH)
        return `In context=${contextOf(path)}, object nesting exceeds the limit of ${MAX_DEPTH}.`;
      if (node.additionalProperties !== false) {
        return `In context=${contextOf(path)}, 'additionalProperties' is required to be supplied and to be false.`;
      }
      const keys = Object.keys(isObject(node.properties) ? node.properties : {});
      properties += keys.length;
      const required = Array.isArray(node.required) ? node.required : undefined;
      const missing = keys.find((key) => !required?.includes(key));
      if (!required || missing !== undefined) {
        return (
          `In context=${contextOf(path)}, 'required' is required to be supplied and to be an array including ` +
          `every key in properties.${missing === undefined ? "" : ` Missing '${missing}'.`}`
        );
      }
      const extra = required.find((key) => typeof key !== "string" || !keys.includes(key));
      if (extra !== undefined) {
        return `In context=${contextOf(path)}, 'required' contains '${String(extra)}', which is not in 'properties'.`;
      }
      for (const key of keys) {
        const problem = walk((node.properties as Schema)[key], [...path, "properties", key], depth + 1);
        if (problem) return problem;
      }
    }
    if (node.items !== undefined) {
      const problem = walk(node.items, [...path, "items"], depth);
      if (problem) return problem;
    }
    for (const keyword of ["anyOf", "$defs", "definitions"] as const) {
      const branches = node[keyword];
      const entries = Array.isArray(branches)
        ? branches.map((branch, index) => [String(index), branch] as const)
        : isObject(branches)
          ? Object.entries(branches)
          : [];
      for (const [key, branch] of entries) {
        const problem = walk(branch, [...path, keyword, key], depth);
        if (problem) return problem;
      }
    }
    return undefined;
  };
  const problem = walk(schema, [], 1);
  if (problem) return problem;
  if (properties > MAX_PROPERTIES)
    return `In context=(), the schema has more than ${MAX_PROPERTIES} object properties.`;
  return undefined;
}

/** One model as the API treats it. */
interface ModelContract {
  /** A reasoning model: `max_tokens` is refused (`max_completion_tokens` only). */
  readonly reasoning: boolean;
}

/** The models the fake serves. */
export const FAKE_MODELS: Readonly<Record<string, ModelContract>> = {
  "gpt-4.1-mini": { reasoning: false },
  "gpt-5-mini": { reasoning: true },
};

interface RequestBody {
  model?: unknown;
  max_tokens?: unknown;
  response_format?: { type?: unknown; json_schema?: { name?: unknown; strict?: unknown; schema?: unknown } };
}

const refuse = (message: string, param: string | null, code: string | null): ApiRefusal => ({
  status: 400,
  error: { message, type: "invalid_request_error", param, code },
});

/** The first refusal the API would answer `body` with, or `undefined` when it accepts the request. */
export function apiRefusal(body: RequestBody): ApiRefusal | undefined {
  const model = typeof body.model === "string" ? body.model : "";
  const contract = FAKE_MODELS[model];
  if (!contract) {
    return {
      status: 404,
      error: {
        message: `The model \`${model}\` does not exist or you do not have access to it.`,
        type: "invalid_request_error",
        param: null,
        code: "model_not_found",
      },
    };
  }
  if (contract.reasoning && body.max_tokens !== undefined) {
    return refuse(
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      "max_tokens",
      "unsupported_parameter",
    );
  }
  const format = body.response_format;
  if (format?.type !== "json_schema") return undefined;
  const jsonSchema = format.json_schema;
  const name = typeof jsonSchema?.name === "string" ? jsonSchema.name : "";
  if (!NAME.test(name)) {
    return refuse(
      "Invalid 'response_format.json_schema.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
      "response_format.json_schema.name",
      "invalid_value",
    );
  }
  if (jsonSchema?.strict !== true) return undefined;
  const problem = strictSchemaProblem(jsonSchema.schema);
  if (!problem) return undefined;
  return refuse(
    `Invalid schema for response_format '${name}': ${problem}`,
    "response_format",
    "invalid_json_schema",
  );
}
