// Preloaded by the CLI benchmark (`node --import`): at exit, writes the process's peak
// resident set size in KiB to the file named by PEAK_RSS_FILE.
import { writeFileSync } from "node:fs";

process.on("exit", () => {
  if (process.env.PEAK_RSS_FILE)
    writeFileSync(process.env.PEAK_RSS_FILE, String(process.resourceUsage().maxRSS));
});
