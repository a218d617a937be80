// The webpack loader of webpackPlugin (plugin.js), run as a post loader: instruments the module
// as the earlier loaders (babel-loader, ts-loader, ...) left it, with their source map, and
// passes on the map composed through it (webpack leaves composing to each loader). Without a
// map from them (babel-loader makes one only when webpack's `devtool` asks for maps), frames
// would point into their output: a warning says so.
import { readFileSync } from 'node:fs';
import { instrumentModule } from './plugin.js';

export default function perfshimInstrumentLoader(code, map) {
  const { o } = this.getOptions();
  const input = map || null;
  if (!input) {
    let original = null;
    try {
      original = readFileSync(this.resourcePath, 'utf8');
    } catch {}
    if (original !== null && original !== code)
      this.emitWarning(
        new Error(
          `perfshim-instrument: ${this.resourcePath} was changed by an earlier loader that passed ` +
            'no source map, so its frames point into that loader output: turn on source maps ' +
            '(devtool)',
        ),
      );
  }
  const out = instrumentModule(code, this.resourcePath, o, input);
  if (!out) return this.callback(null, code, map);
  this.callback(null, out.code, this.sourceMap === false && !input ? undefined : out.map);
}
