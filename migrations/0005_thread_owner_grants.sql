-- Custom migration (drizzle-kit generate --custom): what drizzle-kit does not express.
-- FORCE: the owner is subject to the policies too (defence in depth; superusers still bypass).
ALTER TABLE "thread_owner" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
-- An owner row is written once and never changed: no UPDATE, no DELETE.
GRANT SELECT, INSERT ON "thread_owner" TO app_user;
--> statement-breakpoint
-- The worker and the sweep read the owner of any thread: its two routing columns only.
GRANT SELECT ("thread_id", "org_id") ON "thread_owner" TO app_sweeper;
