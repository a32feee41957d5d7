// The package is "type": "module"; dist/cjs holds CommonJS, which Node recognises by this nested package.json.
import { writeFileSync } from "node:fs";
writeFileSync(new URL("../dist/cjs/package.json", import.meta.url), '{"type": "commonjs"}\n');
