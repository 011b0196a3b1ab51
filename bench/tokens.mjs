// Prints the number of cl100k_base tokens of a file (a tools/list `tools` array as compact JSON),
// counted by js-tiktoken, installed by bench/run under target/bench/npm.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(process.env.NODE_PATH + "/");
const { getEncoding } = require("js-tiktoken");
const text = readFileSync(process.argv[2], "utf8");
console.log(getEncoding("cl100k_base").encode(text).length);
