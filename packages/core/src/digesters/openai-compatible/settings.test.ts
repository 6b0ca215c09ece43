import { InvalidOptionError } from "@context-cleaner/assembler";
import { describe, expect, it } from "vitest";
import { openAiCompatibleSettings } from "./settings";

const required = {
  OPENAI_COMPATIBLE_BASE_URL: "https://openrouter.ai/api/v1",
  OPENAI_COMPATIBLE_API_KEY: "sk-or-test",
  OPENAI_COMPATIBLE_MODEL: "openai/gpt-4.1-mini",
};

describe("openAiCompatibleSettings", () => {
  it("reads base URL, key and model, and the optional limit field and prices", () => {
    expect(openAiCompatibleSettings(required)).toEqual({
      baseURL: "https://openrouter.ai/api/v1",
      apiKey: "sk-or-test",
      model: "openai/gpt-4.1-mini",
    });
    expect(
      openAiCompatibleSettings({
        ...required,
        OPENAI_COMPATIBLE_OUTPUT_LIMIT_FIELD: "max_completion_tokens",
        OPENAI_COMPATIBLE_PRICES: "0.4, 1.6, 0.1",
      }),
    ).toMatchObject({
      outputLimitField: "max_completion_tokens",
      prices: { inputPerMillion: 0.4, outputPerMillion: 1.6, cachedInputPerMillion: 0.1 },
    });
    expect(openAiCompatibleSettings({ ...required, OPENAI_COMPATIBLE_PRICES: "0,0" }).prices).toEqual({
      inputPerMillion: 0,
      outputPerMillion: 0,
    });
  });

  it("names every missing setting, empty values counting as missing", () => {
    expect(() =>
      openAiCompatibleSettings({ OPENAI_COMPATIBLE_API_KEY: "k", OPENAI_COMPATIBLE_MODEL: " " }),
    ).toThrow("the OpenAI-compatible digester needs OPENAI_COMPATIBLE_BASE_URL, OPENAI_COMPATIBLE_MODEL");
  });

  it.each(["1", "a,b", "1,-2", "1,2,3,4", "1,,2"])("refuses prices %j", (prices) => {
    expect(() => openAiCompatibleSettings({ ...required, OPENAI_COMPATIBLE_PRICES: prices })).toThrow(
      InvalidOptionError,
    );
  });
});
