// Bundles the web extension (src/web.js) and its tests into one CommonJS
// file each, as VS Code loads web extensions: everything but `vscode` (the
// host's) inside, for a worker. ctxpack's wasm modules stay files of the
// extension (node_modules/ctxpack/dist/wasm/), which the extension reads.
import path from 'node:path';
import webpack from 'webpack';

const here = import.meta.dirname;

/** webpack's options for the bundle of `entry` written to `out`. */
const bundle = (entry, out) => ({
  mode: 'production',
  target: 'webworker',
  entry: path.join(here, entry),
  output: { path: path.join(here, path.dirname(out)), filename: path.basename(out), library: { type: 'commonjs2' } },
  externals: { vscode: 'commonjs vscode' },
  // One file: the codec's glue, which ctxpack imports on first use, inside.
  plugins: [new webpack.optimize.LimitChunkCountPlugin({ maxChunks: 1 })],
  // The glue's default `new URL('…_bg.wasm', import.meta.url)` is no asset
  // to emit: the extension passes its own reader to init.
  module: { parser: { javascript: { url: false } } },
  optimization: { minimize: false },
  performance: { hints: false },
  devtool: false,
});

const configs = [bundle('src/web.js', 'dist/web.js'), bundle('test/web.js', 'dist/test/web.js'), bundle('test/reload.web.js', 'dist/test/reload.web.js')];
const stats = await new Promise((resolve, reject) => webpack(configs, (e, s) => (e ? reject(e) : resolve(s))));
if (stats.hasErrors() || stats.hasWarnings()) {
  console.error(stats.toString({ all: false, errors: true, warnings: true }));
  process.exit(1);
}
