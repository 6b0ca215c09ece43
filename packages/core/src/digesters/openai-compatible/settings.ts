import { InvalidOptionError } from "@context-cleaner/assembler";
import type { OutputLimitField } from "./chat-request";
import type { OpenAiCompatiblePrices } from "./openai-compatible-digester";

/** The names of the settings an OpenAI-compatible digester is configured by (environment or secret keys). */
export const OPENAI_COMPATIBLE_SETTINGS = {
  baseURL: "OPENAI_COMPATIBLE_BASE_URL",
  apiKey: "OPENAI_COMPATIBLE_API_KEY",
  model: "OPENAI_COMPATIBLE_MODEL",
  outputLimitField: "OPENAI_COMPATIBLE_OUTPUT_LIMIT_FIELD",
  prices: "OPENAI_COMPATIBLE_PRICES",
} as const;

/** What {@link openAiCompatibleSettings} reads: a setting's value by name, or undefined. */
export type SettingSource = Readonly<Record<string, string | undefined>>;

/** The digester options the settings give (without a client). */
export interface OpenAiCompatibleSettings {
  baseURL: string;
  apiKey: string;
  model: string;
  outputLimitField?: OutputLimitField;
  prices?: OpenAiCompatiblePrices;
}

function parsePrices(text: string): OpenAiCompatiblePrices {
  const parts = text.split(",").map((part) => part.trim());
  const numbers = parts.map(Number);
  if (
    parts.length < 2 ||
    parts.length > 3 ||
    parts.some((part) => part === "") ||
    numbers.some((n) => !(n >= 0))
  ) {
    throw new InvalidOptionError(
      `${OPENAI_COMPATIBLE_SETTINGS.prices} must be "input,output[,cached input]" in USD per million tokens, got ${JSON.stringify(text)}`,
      OPENAI_COMPATIBLE_SETTINGS.prices,
    );
  }
  const [inputPerMillion, outputPerMillion, cachedInputPerMillion] = numbers as [number, number, number?];
  return cachedInputPerMillion === undefined
    ? { inputPerMillion, outputPerMillion }
    : { inputPerMillion, outputPerMillion, cachedInputPerMillion };
}

/**
 * The OpenAI-compatible digester's options from settings by name
 * ({@link OPENAI_COMPATIBLE_SETTINGS}): base URL, key and model are required; the output
 * limit field (`max_tokens` or `max_completion_tokens`) and prices
 * (`"input,output[,cached input]"`, USD per million tokens) are optional. Empty values
 * count as absent.
 *
 * @throws {InvalidOptionError} naming every missing setting, or the one that is malformed.
 * @example
 * const options = openAiCompatibleSettings(process.env);
 * const digester = createOpenAiCompatibleDigester(options);
 */
export function openAiCompatibleSettings(source: SettingSource): OpenAiCompatibleSettings {
  const read = (name: string) => {
    const value = source[name]?.trim();
    return value === undefined || value === "" ? undefined : value;
  };
  const names = OPENAI_COMPATIBLE_SETTINGS;
  const baseURL = read(names.baseURL);
  const apiKey = read(names.apiKey);
  const model = read(names.model);
  if (!baseURL || !apiKey || !model) {
    const missing = [
      ...(baseURL ? [] : [names.baseURL]),
      ...(apiKey ? [] : [names.apiKey]),
      ...(model ? [] : [names.model]),
    ];
    throw new InvalidOptionError(
      `the OpenAI-compatible digester needs ${missing.join(", ")}`,
      missing[0] ?? "",
    );
  }
  const field = read(names.outputLimitField);
  if (field !== undefined && field !== "max_tokens" && field !== "max_completion_tokens") {
    throw new InvalidOptionError(
      `${names.outputLimitField} must be max_tokens or max_completion_tokens, got ${JSON.stringify(field)}`,
      names.outputLimitField,
    );
  }
  const prices = read(names.prices);
  return {
    baseURL,
    apiKey,
    model,
    ...(field ? { outputLimitField: field } : {}),
    ...(prices ? { prices: parsePrices(prices) } : {}),
  };
}
