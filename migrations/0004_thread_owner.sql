CREATE TABLE "thread_owner" (
	"thread_id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "thread_owner_org_id_nonempty" CHECK ("thread_owner"."org_id" <> ''),
	CONSTRAINT "thread_owner_thread_id_nonempty" CHECK ("thread_owner"."thread_id" <> '')
);
--> statement-breakpoint
ALTER TABLE "thread_owner" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE POLICY "thread_owner_org_isolation" ON "thread_owner" AS PERMISSIVE FOR ALL TO "app_user" USING ("thread_owner"."org_id" = nullif(current_setting('app.organization_id', true), '')) WITH CHECK ("thread_owner"."org_id" = nullif(current_setting('app.organization_id', true), ''));--> statement-breakpoint
CREATE POLICY "thread_owner_sweeper_read" ON "thread_owner" AS PERMISSIVE FOR SELECT TO "app_sweeper" USING (true);