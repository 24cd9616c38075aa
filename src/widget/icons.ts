/**
 * Figure Chat's icon: a speech bubble holding a small chart, in the theme's icon colour.
 */
import { LabIcon } from '@jupyterlab/ui-components';

const CHAT_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 24 24">
  <path class="jp-icon3" fill="#616161" d="M4 3h16a2 2 0 0 1 2 2v11a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2zm1 2v11h2v2.2L9.6 16H19V5H5zm2 8h2v2H7v-2zm4-4h2v6h-2V9zm4-2h2v8h-2V7z"/>
</svg>`;

export const figureChatIcon = new LabIcon({
  name: 'jupyterlab-figure-chat:chat',
  svgstr: CHAT_SVG
});
