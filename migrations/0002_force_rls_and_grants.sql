-- Custom migration (drizzle-kit generate --custom): what drizzle-kit does not express.
-- FORCE: the owner is subject to the policies too (defence in depth; superusers still bypass).
ALTER TABLE "context_digest" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "spend_ledger" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "thread_pass" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
GRANT SELECT, INSERT, UPDATE, DELETE ON "context_digest", "spend_ledger", "thread_pass" TO app_user;
--> statement-breakpoint
-- The sweep sees routing columns of the pass record only: no digests, no spend.
GRANT SELECT ("org_id", "thread_id", "status", "reason", "covered_turn_ended_at", "latest_turn_ended_at", "recorded_at")
  ON "thread_pass" TO app_sweeper;
