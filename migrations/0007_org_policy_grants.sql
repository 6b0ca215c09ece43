-- Custom migration (drizzle-kit generate --custom): what drizzle-kit does not express.
-- FORCE: the owner is subject to the policies too (defence in depth; superusers still bypass).
ALTER TABLE "org_policy" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
-- An org reads and sets its own policy; deleting its row brings the deployment's defaults back.
GRANT SELECT, INSERT, UPDATE, DELETE ON "org_policy" TO app_user;
