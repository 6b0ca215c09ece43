/**
 * Prints the README's table of the worker's and the sweep's settings, generated from the
 * settings table (`SETTINGS`, packages/core/src/worker/settings.ts). Paste it between the
 * README's `settings-table` markers; a unit test checks they match.
 */
import { settingsTableMarkdown } from "../packages/core/src/worker/settings";

process.stdout.write(`${settingsTableMarkdown()}\n`);
