// Builds conclab's JupyterLab into build/: bundle.js (the app of index.js and
// its lazily loaded chunks, CodeMirror's language modes among them), plus the
// settings schemas, themes and style imports that @jupyterlab/builder's
// ensureAssets copies from the extensions listed in package.json.
// `webpack --mode=production` (the default here) or `--mode=development`.
const path = require('path');
const crypto = require('crypto');
const webpack = require('webpack');
const { Build } = require('@jupyterlab/builder');
const pkg = require('./package.json');

// Some of JupyterLab 3's loaders (file-loader, url-loader through
// loader-utils 2) hash with md4, which Node 17+ (OpenSSL 3) refuses; hash
// those with sha256 instead. Only the names of emitted files depend on it.
const createHash = crypto.createHash;
crypto.createHash = algorithm => createHash(algorithm === 'md4' ? 'sha256' : algorithm);

const out = path.resolve(__dirname, 'build');

module.exports = (env, argv) => {
  const production = (argv.mode || 'production') === 'production';
  const themes = Build.ensureAssets({
    packageNames: pkg.jupyterlab.extensions,
    output: out
  });
  const app = {
    mode: production ? 'production' : 'development',
    entry: path.resolve(__dirname, 'index.js'),
    output: {
      path: out,
      filename: 'bundle.js',
      chunkFilename: '[name].[contenthash:12].js',
      hashFunction: 'sha256',
      clean: false
    },
    bail: true,
    devtool: false,
    performance: { hints: false },
    module: {
      rules: [
        { test: /\.css$/, use: ['style-loader', 'css-loader'] },
        { test: /\.md$/, type: 'asset/source' },
        { test: /\.html$/, type: 'asset/resource' },
        { test: /\.(jpg|png|gif|woff2?|ttf|eot)(\?v=\d+\.\d+\.\d+)?$/, type: 'asset' },
        // SVG: inline data URIs from CSS, raw markup for the icons JS imports.
        { test: /\.svg(\?v=\d+\.\d+\.\d+)?$/, issuer: /\.css$/, type: 'asset/inline' },
        { test: /\.svg(\?v=\d+\.\d+\.\d+)?$/, issuer: /\.js$/, type: 'asset/source' }
      ]
    },
    resolve: { fallback: { path: require.resolve('path-browserify'), util: false, url: false, buffer: false, crypto: false } },
    plugins: [
      new webpack.DefinePlugin({
        // Blueprint and the path polyfill read these.
        'process.env': '{}',
        process: { cwd: () => '/' }
      })
    ]
  };
  return [app].concat(themes);
};
