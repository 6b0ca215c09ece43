/**
 * What the real Messages API refuses, per model, as the fake plays it. Kept apart from the
 * digester's own model table on purpose: the fake stands for the API, so a digester that
 * misreads a model's contract fails against it instead of agreeing with itself.
 */

/** One model as the API treats it. */
interface ModelContract {
  /** The model thinks (adaptively) when the request sets no `thinking`. */
  readonly thinksByDefault: boolean;
  /** A 5.x model: sampling parameters, manual thinking and assistant prefill are refused. */
  readonly generation5: boolean;
}

const MODEL_CONTRACTS: Readonly<Record<string, ModelContract>> = {
  "claude-haiku-5-5": { thinksByDefault: true, generation5: true },
  "claude-haiku-4-5": { thinksByDefault: false, generation5: false },
};

/** A refusal as the API words it. */
export interface ContractRefusal {
  readonly status: 400 | 404;
  readonly type: "invalid_request_error" | "not_found_error";
  readonly message: string;
}

export const REFUSALS = {
  thinkingWithForcedTool: "Thinking may not be enabled when tool_choice forces tool use.",
  manualThinking:
    '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" instead.',
  prefill:
    "This model does not support assistant message prefill. The conversation must end with a user message.",
  samplingParameter: (name: string) => `\`${name}\` is not supported for this model.`,
} as const;

interface RequestBody {
  model?: unknown;
  thinking?: { type?: unknown };
  tool_choice?: { type?: unknown };
  messages?: { role?: unknown }[];
  [parameter: string]: unknown;
}

/** The first refusal the API would answer `body` with, or `undefined` when it accepts the request. */
export function contractRefusal(body: RequestBody): ContractRefusal | undefined {
  const model = typeof body.model === "string" ? body.model : "";
  const contract = MODEL_CONTRACTS[model];
  if (!contract) return { status: 404, type: "not_found_error", message: `model: ${model}` };
  const refuse = (message: string): ContractRefusal => ({
    status: 400,
    type: "invalid_request_error",
    message,
  });
  const thinkingType = body.thinking?.type;
  if (contract.generation5) {
    for (const name of ["temperature", "top_p", "top_k"]) {
      if (body[name] !== undefined) return refuse(REFUSALS.samplingParameter(name));
    }
    if (thinkingType === "enabled") return refuse(REFUSALS.manualThinking);
    if (body.messages?.at(-1)?.role === "assistant") return refuse(REFUSALS.prefill);
  }
  const thinking =
    thinkingType === "enabled" ||
    thinkingType === "adaptive" ||
    (thinkingType === undefined && contract.thinksByDefault);
  const forced = body.tool_choice?.type === "tool" || body.tool_choice?.type === "any";
  if (thinking && forced) return refuse(REFUSALS.thinkingWithForcedTool);
  return undefined;
}
