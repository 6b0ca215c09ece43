CREATE TABLE "org_policy" (
	"org_id" text PRIMARY KEY NOT NULL,
	"mode" text NOT NULL,
	"trigger_chars" integer,
	"recency_keep_exchanges" integer,
	"digest_char_cap" integer,
	"max_calls_per_job" integer,
	"daily_budget_micro_usd" bigint,
	"tool_rules" jsonb,
	"updated_by" text NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "org_policy_org_id_nonempty" CHECK ("org_policy"."org_id" <> ''),
	CONSTRAINT "org_policy_mode_valid" CHECK ("org_policy"."mode" in ('on', 'shadow', 'off')),
	CONSTRAINT "org_policy_overrides_nonnegative" CHECK (coalesce("org_policy"."trigger_chars", 0) >= 0 and coalesce("org_policy"."recency_keep_exchanges", 0) >= 0 and coalesce("org_policy"."digest_char_cap", 1) >= 1 and coalesce("org_policy"."max_calls_per_job", 0) >= 0 and coalesce("org_policy"."daily_budget_micro_usd", 0) >= 0),
	CONSTRAINT "org_policy_tool_rules_object" CHECK ("org_policy"."tool_rules" is null or jsonb_typeof("org_policy"."tool_rules") = 'object'),
	CONSTRAINT "org_policy_updated_by_nonempty" CHECK ("org_policy"."updated_by" <> '')
);
--> statement-breakpoint
ALTER TABLE "org_policy" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE POLICY "org_policy_org_isolation" ON "org_policy" AS PERMISSIVE FOR ALL TO "app_user" USING ("org_policy"."org_id" = nullif(current_setting('app.organization_id', true), '')) WITH CHECK ("org_policy"."org_id" = nullif(current_setting('app.organization_id', true), ''));