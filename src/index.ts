/**
 * Figure Chat's plugins, one concern each (see src/plugins): the tool and card registries with the
 * built-in tools, typed settings, the sidebar, its commands, attaching pictures, and the start-up
 * version check. Add a plugin by adding one line to the list.
 */
import type { JupyterFrontEndPlugin } from '@jupyterlab/application';

import { figureOutputPlugin } from './outputs/figure-outputs';
import { insertPlugin } from './outputs/insert';
import { kernelBridgePlugin } from './kernel-bridge/plugin';
import { pinnedCellsPlugin } from './outputs/pinned-cells';
import { agentCallsPlugin } from './plugins/agent-calls';
import { attachPlugin } from './plugins/attach';
import { conversationCommandsPlugin } from './plugins/conversation-commands';
import { settingsPlugin } from './plugins/settings';
import { sidebarPlugin } from './plugins/sidebar';
import { builtinToolsPlugin, cardRenderersPlugin, toolRegistryPlugin } from './plugins/tools';
import { versionPlugin } from './plugins/version';

const plugins: JupyterFrontEndPlugin<unknown>[] = [
  toolRegistryPlugin,
  cardRenderersPlugin,
  builtinToolsPlugin,
  settingsPlugin,
  sidebarPlugin,
  conversationCommandsPlugin,
  attachPlugin,
  versionPlugin,
  figureOutputPlugin,
  insertPlugin,
  kernelBridgePlugin,
  pinnedCellsPlugin,
  agentCallsPlugin
];

export default plugins;
