/**
 * Whether a Vision widget model can still reach its kernel. jupyterlab-manager keeps a model after
 * Kernel → Restart (it only sets `comm_live` to false) and after Shut Down (nothing closes the
 * comm), so a view of it would take clicks that reach no kernel. This watches every way a model
 * loses its kernel, in JupyterLab and Notebook 7 alike (both use jupyterlab-manager):
 * - `comm_live` turning false: the manager's answer to the kernel's `restarting` status;
 * - the comm closing (`comm:close`, `destroy`): `v.close()` in the kernel, or the manager cleared;
 * - the kernel connection itself (the manager's `kernel`): status `restarting`/`autorestarting`
 *   (restarted), `dead`, a `disconnected` connection or its disposal (shut down).
 * Whichever comes first decides the reason; the model is never live again (running the cell
 * again makes a new model).
 */
import type { DOMWidgetModel } from '@jupyter-widgets/base';
import type { Kernel, KernelMessage } from '@jupyterlab/services';

/** Why a model's kernel is out of reach. */
export type GoneReason = 'restarted' | 'stopped' | 'closed';

/** The kernel connection a widget manager holds (`WidgetManager.kernel` in jupyterlab-manager). */
function kernelOf(model: DOMWidgetModel): Kernel.IKernelConnection | null {
  // Not in the IWidgetManager interface: read it without trusting its shape.
  const kernel: unknown = Reflect.get(model.widget_manager, 'kernel');
  if (
    typeof kernel === 'object' &&
    kernel !== null &&
    'statusChanged' in kernel &&
    'connectionStatusChanged' in kernel &&
    'disposed' in kernel &&
    'status' in kernel
  ) {
    return kernel as Kernel.IKernelConnection;
  }
  return null;
}

/** The reason a kernel status means the kernel is gone, or null while it still holds the model. */
function reasonOfStatus(status: KernelMessage.Status): GoneReason | null {
  switch (status) {
    case 'restarting':
    case 'autorestarting':
      return 'restarted';
    case 'dead':
      return 'stopped';
    default:
      return null;
  }
}

/**
 * Call `onGone` once, as soon as `model` can no longer reach its kernel (at once if it never
 * could: a model restored from saved widget state has no comm).
 */
export function watchKernel(model: DOMWidgetModel, onGone: (reason: GoneReason) => void): void {
  const kernel = kernelOf(model);
  let done = false;
  const gone = (reason: GoneReason): void => {
    if (done) {
      return;
    }
    done = true;
    model.off('comm_live_update', onLive);
    model.off('comm:close destroy', onClose);
    if (kernel) {
      kernel.statusChanged.disconnect(onStatus);
      kernel.connectionStatusChanged.disconnect(onConnection);
      kernel.disposed.disconnect(onDisposed);
    }
    onGone(reason);
  };
  const onLive = (): void => {
    if (!model.comm_live) {
      gone('restarted');
    }
  };
  const onClose = (): void => gone('closed');
  const onStatus = (_: unknown, status: KernelMessage.Status): void => {
    const reason = reasonOfStatus(status);
    if (reason) {
      gone(reason);
    }
  };
  const onConnection = (_: unknown, status: Kernel.ConnectionStatus): void => {
    if (status === 'disconnected') {
      gone('stopped');
    }
  };
  const onDisposed = (): void => gone('stopped');

  if (!model.comm_live) {
    gone('stopped');
    return;
  }
  if (kernel && (kernel.isDisposed || reasonOfStatus(kernel.status))) {
    gone(kernel.isDisposed ? 'stopped' : (reasonOfStatus(kernel.status) ?? 'stopped'));
    return;
  }
  model.on('comm_live_update', onLive);
  model.on('comm:close destroy', onClose);
  if (kernel) {
    kernel.statusChanged.connect(onStatus);
    kernel.connectionStatusChanged.connect(onConnection);
    kernel.disposed.connect(onDisposed);
  }
}
