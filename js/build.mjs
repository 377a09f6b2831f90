// Bundle src/player.js (with Graphviz's WebAssembly inlined by @viz-js/viz, and the d3 modules) into
// one ES module shipped inside the Python package. Deterministic: the same lock file gives the same bytes.
import { build } from "esbuild";

await build({
  entryPoints: ["src/player.js"],
  outfile: process.env.AGL_BUNDLE_OUT || "../autogradlab/viz/static/player.js",
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["es2020"],
  minify: true,
  legalComments: "inline",
  charset: "utf8",
  logLevel: "warning",
});
