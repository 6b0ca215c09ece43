CREATE TABLE "context_digest" (
	"org_id" text NOT NULL,
	"thread_id" text NOT NULL,
	"tool_call_id" text NOT NULL,
	"kind" text NOT NULL,
	"tool_name" text NOT NULL,
	"provenance_args" jsonb NOT NULL,
	"content_sha256" text NOT NULL,
	"digest" text NOT NULL,
	"original_chars" integer NOT NULL,
	"digest_chars" integer NOT NULL,
	"model" text,
	"input_tokens" integer DEFAULT 0 NOT NULL,
	"output_tokens" integer DEFAULT 0 NOT NULL,
	"cost_micro_usd" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "context_digest_pkey" PRIMARY KEY("org_id","thread_id","tool_call_id"),
	CONSTRAINT "context_digest_org_id_nonempty" CHECK ("context_digest"."org_id" <> ''),
	CONSTRAINT "context_digest_thread_id_nonempty" CHECK ("context_digest"."thread_id" <> ''),
	CONSTRAINT "context_digest_tool_call_id_nonempty" CHECK ("context_digest"."tool_call_id" <> ''),
	CONSTRAINT "context_digest_kind_valid" CHECK ("context_digest"."kind" in ('digest', 'superseded-search')),
	CONSTRAINT "context_digest_tool_name_nonempty" CHECK ("context_digest"."tool_name" <> ''),
	CONSTRAINT "context_digest_provenance_object" CHECK (jsonb_typeof("context_digest"."provenance_args") = 'object'),
	CONSTRAINT "context_digest_sha256_hex" CHECK ("context_digest"."content_sha256" ~ '^[0-9a-f]{64}$'),
	CONSTRAINT "context_digest_digest_nonempty" CHECK ("context_digest"."digest" <> ''),
	CONSTRAINT "context_digest_original_chars_nonnegative" CHECK ("context_digest"."original_chars" >= 0),
	CONSTRAINT "context_digest_digest_chars_match" CHECK ("context_digest"."digest_chars" = char_length("context_digest"."digest")),
	CONSTRAINT "context_digest_usage_nonnegative" CHECK ("context_digest"."input_tokens" >= 0 and "context_digest"."output_tokens" >= 0 and "context_digest"."cost_micro_usd" >= 0)
);
--> statement-breakpoint
ALTER TABLE "context_digest" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "spend_ledger" (
	"org_id" text NOT NULL,
	"day" date NOT NULL,
	"reserved_micro_usd" bigint DEFAULT 0 NOT NULL,
	"spent_micro_usd" bigint DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "spend_ledger_pkey" PRIMARY KEY("org_id","day"),
	CONSTRAINT "spend_ledger_org_id_nonempty" CHECK ("spend_ledger"."org_id" <> ''),
	CONSTRAINT "spend_ledger_reserved_nonnegative" CHECK ("spend_ledger"."reserved_micro_usd" >= 0),
	CONSTRAINT "spend_ledger_spent_nonnegative" CHECK ("spend_ledger"."spent_micro_usd" >= 0)
);
--> statement-breakpoint
ALTER TABLE "spend_ledger" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "thread_pass" (
	"org_id" text NOT NULL,
	"thread_id" text NOT NULL,
	"status" text NOT NULL,
	"reason" text,
	"covered_turn_ended_at" timestamp with time zone,
	"latest_turn_ended_at" timestamp with time zone,
	"raw_tool_chars" integer DEFAULT 0 NOT NULL,
	"digests_written" integer DEFAULT 0 NOT NULL,
	"recorded_at" timestamp with time zone NOT NULL,
	CONSTRAINT "thread_pass_pkey" PRIMARY KEY("org_id","thread_id"),
	CONSTRAINT "thread_pass_org_id_nonempty" CHECK ("thread_pass"."org_id" <> ''),
	CONSTRAINT "thread_pass_thread_id_nonempty" CHECK ("thread_pass"."thread_id" <> ''),
	CONSTRAINT "thread_pass_status_valid" CHECK ("thread_pass"."status" in ('done', 'skipped', 'partial', 'failed')),
	CONSTRAINT "thread_pass_counts_nonnegative" CHECK ("thread_pass"."raw_tool_chars" >= 0 and "thread_pass"."digests_written" >= 0)
);
--> statement-breakpoint
ALTER TABLE "thread_pass" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE INDEX "context_digest_org_sha256_idx" ON "context_digest" USING btree ("org_id","content_sha256");--> statement-breakpoint
CREATE INDEX "thread_pass_recorded_at_idx" ON "thread_pass" USING btree ("recorded_at");--> statement-breakpoint
CREATE POLICY "context_digest_org_isolation" ON "context_digest" AS PERMISSIVE FOR ALL TO "app_user" USING ("context_digest"."org_id" = nullif(current_setting('app.organization_id', true), '')) WITH CHECK ("context_digest"."org_id" = nullif(current_setting('app.organization_id', true), ''));--> statement-breakpoint
CREATE POLICY "spend_ledger_org_isolation" ON "spend_ledger" AS PERMISSIVE FOR ALL TO "app_user" USING ("spend_ledger"."org_id" = nullif(current_setting('app.organization_id', true), '')) WITH CHECK ("spend_ledger"."org_id" = nullif(current_setting('app.organization_id', true), ''));--> statement-breakpoint
CREATE POLICY "thread_pass_org_isolation" ON "thread_pass" AS PERMISSIVE FOR ALL TO "app_user" USING ("thread_pass"."org_id" = nullif(current_setting('app.organization_id', true), '')) WITH CHECK ("thread_pass"."org_id" = nullif(current_setting('app.organization_id', true), ''));--> statement-breakpoint
CREATE POLICY "thread_pass_sweeper_read" ON "thread_pass" AS PERMISSIVE FOR SELECT TO "app_sweeper" USING (true);