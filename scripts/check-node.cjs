// `npm start`'s preflight (package.json "prestart"): on a Node older than package.json's
// engines field asks for, one line on stderr saying which version the demo needs, and exit 1,
// instead of a crash further in. CommonJS with no newer syntax, so an old Node parses it.
"use strict";

const required = require("../package.json").engines.node; // ">=22"
const neededMajor = Number(/\d+/.exec(required)[0]);
const current = process.versions.node;

if (Number(current.split(".")[0]) < neededMajor) {
  process.stderr.write(
    `context-cleaner needs Node ${neededMajor} or later (engines "${required}"); this is Node ${current}: ` +
      `install Node ${neededMajor} (e.g. \`nvm install ${neededMajor}\`), then run npm install and npm start again.\n`,
  );
  process.exit(1);
}
