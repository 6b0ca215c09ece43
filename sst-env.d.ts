/* Written by hand: `sst dev` and `sst deploy` generate this file from sst.config.ts, but
   they need AWS. It lets functions/* type-check `Resource.*` offline; keep it in step with
   the links in sst.config.ts. */
import "sst";

declare module "sst" {
  export interface Resource {
    AnthropicApiKey: { type: "sst.sst.Secret"; value: string };
    CheckpointDatabaseUrl: { type: "sst.sst.Secret"; value: string };
    DatabaseUrl: { type: "sst.sst.Secret"; value: string };
    DigestDeadLetterQueue: { type: "sst.aws.Queue"; url: string };
    DigestQueue: { type: "sst.aws.Queue"; url: string };
    OpenAiCompatibleKey: { type: "sst.sst.Secret"; value: string };
    RedisUrl: { type: "sst.sst.Secret"; value: string };
    UpstashRedisToken: { type: "sst.sst.Secret"; value: string };
    UpstashRedisUrl: { type: "sst.sst.Secret"; value: string };
  }
}
