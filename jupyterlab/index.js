// conclab's JupyterLab: the application shell and the standard extensions a
// notebook user expects, from JupyterLab's published npm packages (the list
// in package.json's "jupyterlab.extensions" is the one webpack copies
// settings schemas and themes for; keep the two in step).
import { JupyterLab } from '@jupyterlab/application';
import { PageConfig } from '@jupyterlab/coreutils';

// Chunks and assets load from the server's static URL; set before any import
// that pulls CSS or a lazy chunk.
// eslint-disable-next-line no-undef
__webpack_public_path__ = PageConfig.getOption('fullStaticUrl') + '/';

// build/style.js is written by @jupyterlab/builder's ensureAssets (see
// webpack.config.js): it imports each extension's style.
const styles = import('./build/style.js');

const plugins = [
  import('@jupyterlab/application-extension'),
  import('@jupyterlab/apputils-extension'),
  import('@jupyterlab/codemirror-extension'),
  import('@jupyterlab/completer-extension'),
  import('@jupyterlab/console-extension'),
  import('@jupyterlab/docmanager-extension'),
  import('@jupyterlab/filebrowser-extension'),
  import('@jupyterlab/fileeditor-extension'),
  import('@jupyterlab/inspector-extension'),
  import('@jupyterlab/launcher-extension'),
  import('@jupyterlab/mainmenu-extension'),
  import('@jupyterlab/markdownviewer-extension'),
  import('@jupyterlab/notebook-extension'),
  import('@jupyterlab/rendermime-extension'),
  import('@jupyterlab/running-extension'),
  import('@jupyterlab/settingeditor-extension'),
  import('@jupyterlab/shortcuts-extension'),
  import('@jupyterlab/statusbar-extension'),
  import('@jupyterlab/theme-light-extension'),
  import('@jupyterlab/tooltip-extension'),
  import('@jupyterlab/translation-extension'),
  import('@jupyterlab/ui-components-extension')
];

// Plugins left out: the news and update check asks jupyter.org (and an API
// jupyterlab-server 2.16 lacks), and this lab stays offline.
const disabled = new Set(['@jupyterlab/apputils-extension:announcements']);

// pluginsOf lists a plugin module's plugins (its default export: one or an
// array), less the disabled ones.
function pluginsOf(mod) {
  const list = Array.isArray(mod.default) ? mod.default : [mod.default];
  return list.filter(p => !disabled.has(p.id));
}

// Renderers for output MIME types beyond rendermime's defaults.
const mimeRenderers = [import('@jupyterlab/json-extension')];

async function main() {
  await styles;
  const lab = new JupyterLab({ mimeExtensions: await Promise.all(mimeRenderers) });
  lab.registerPlugins((await Promise.all(plugins)).flatMap(pluginsOf));
  await lab.start();
  await lab.restored;
  // A hook for the browser tests (and the curious): the app, once restored.
  window.conclabLab = lab;
}

window.addEventListener('load', () => {
  main().catch(err => console.error('conclab JupyterLab failed to start', err));
});
