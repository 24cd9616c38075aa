/**
 * Calls from other agents (MCP clients of this Jupyter server) on the notebooks this page has
 * open: the page tells the server which notebooks it has open over a websocket
 * (`<base_url>api/figure-chat/agent-calls`, jupyterlab_figure_chat/mcp/pages.py), and the server
 * sends it the calls on them, so the page — the notebook's one writer while it is open — applies
 * them through the notebook's chat session (src/chat/agent-calls) and answers.
 */
import type { JupyterFrontEndPlugin } from '@jupyterlab/application';
import { URLExt } from '@jupyterlab/coreutils';
import { INotebookTracker, type NotebookPanel } from '@jupyterlab/notebook';
import { ServerConnection } from '@jupyterlab/services';

import type { AgentCallAnswer } from '../chat/agent-calls';
import { AgentCall } from '../tools/agent-turn';
import { isRecord } from '../tools/guards';
import { IFigureChatSidebar, ILiveVisionWidgets, IToolRegistry } from '../tokens';

/** The channel's path under the server's base URL. */
export const AGENT_CALLS_PATH = 'api/figure-chat/agent-calls';

/** Waits before reconnecting after the channel closed: doubling from the first, up to the last. */
const RECONNECT_MS = [1000, 30_000] as const;

/** A notebook's path as the server spells it: no leading slash. */
function serverPath(panel: NotebookPanel): string {
  return panel.context.localPath.replace(/^\/+/, '');
}

export const agentCallsPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyterlab-figure-chat:agent-calls',
  description:
    "Takes other agents' Figure Chat tool calls (MCP) on the notebooks open in this page, as their chat's turns.",
  autoStart: true,
  requires: [IToolRegistry, INotebookTracker, IFigureChatSidebar],
  optional: [ILiveVisionWidgets],
  activate: (
    _app,
    registry: IToolRegistry,
    tracker: INotebookTracker,
    sidebar: IFigureChatSidebar,
    liveVision: ILiveVisionWidgets | null
  ): void => {
    const settings = ServerConnection.makeSettings();
    let socket: WebSocket | null = null;
    let delay: number = RECONNECT_MS[0];

    const openPaths = (): string[] => {
      const paths: string[] = [];
      tracker.forEach(panel => {
        if (!panel.isDisposed) {
          paths.push(serverPath(panel));
        }
      });
      return paths;
    };
    const announce = (): void => {
      if (socket?.readyState === WebSocket.OPEN) {
        socket.send(JSON.stringify({ type: 'open', paths: openPaths() }));
      }
    };

    const answer = async (id: string, path: string, body: unknown): Promise<void> => {
      let reply: AgentCallAnswer | { error: string };
      const call = AgentCall.safeParse(body);
      const panel = tracker.find(candidate => serverPath(candidate) === path);
      if (!call.success) {
        reply = { error: 'The JupyterLab page could not read the call.' };
      } else if (!panel) {
        reply = { error: `The notebook "${path}" is no longer open in this page; call again.` };
      } else {
        const { runAgentCall } = await import('../chat/agent-calls');
        const session = await sidebar.sessionFor(panel);
        reply = session
          ? await runAgentCall(
              session,
              registry,
              call.data,
              liveVision,
              new AbortController().signal
            )
          : { error: `The notebook "${path}" was closed; call again.` };
      }
      socket?.send(JSON.stringify({ type: 'result', id, ...reply }));
    };

    const onMessage = (event: MessageEvent): void => {
      let message: unknown;
      try {
        message = JSON.parse(String(event.data));
      } catch {
        return;
      }
      if (!isRecord(message) || message.type !== 'call') {
        return;
      }
      const { id, path } = message;
      if (typeof id !== 'string' || typeof path !== 'string') {
        return;
      }
      answer(id, path, message.call).catch((error: unknown) => {
        const text = error instanceof Error ? error.message : String(error);
        socket?.send(JSON.stringify({ type: 'result', id, error: text }));
      });
    };

    const connect = (): void => {
      let url = URLExt.join(settings.wsUrl, AGENT_CALLS_PATH);
      if (settings.token && settings.appendToken) {
        url += `?token=${encodeURIComponent(settings.token)}`;
      }
      const opened = new WebSocket(url);
      socket = opened;
      opened.onopen = () => {
        delay = RECONNECT_MS[0];
        announce();
      };
      opened.onmessage = onMessage;
      opened.onclose = () => {
        if (socket === opened) {
          socket = null;
          // The server restarted or the network dropped: the page stays the writer of its notebooks.
          setTimeout(connect, delay);
          delay = Math.min(delay * 2, RECONNECT_MS[1]);
        }
      };
    };

    const follow = (panel: NotebookPanel): void => {
      void panel.context.ready.then(announce);
      panel.context.pathChanged.connect(announce);
      panel.disposed.connect(announce);
    };
    tracker.forEach(follow);
    tracker.widgetAdded.connect((_, panel) => follow(panel));
    connect();
  }
};
