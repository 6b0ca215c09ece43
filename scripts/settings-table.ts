/**
 * Prints the table of the worker's and the sweep's settings in docs/operate.md, generated
 * from the settings table (`SETTINGS`, packages/core/src/worker/settings.ts). Paste it
 * between docs/operate.md's `settings-table` markers; a unit test checks they match.
 */
import { settingsTableMarkdown } from "../packages/core/src/worker/settings";

process.stdout.write(`${settingsTableMarkdown()}\n`);
