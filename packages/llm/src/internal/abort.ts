/** Callbacks waiting on each signal: one `abort` listener per signal, however many callers wait on it. */
const waiting = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Runs `fn` once when `signal` aborts; returns the function that cancels this. Node's `addEventListener` on an
 * `AbortSignal` costs several microseconds (and one listener per call in flight piles up on a run's signal), a
 * `Set` entry almost nothing. `signal` must not be aborted already (callers check `signal.aborted` first).
 */
export function onAbort(signal: AbortSignal, fn: () => void): () => void {
  let set = waiting.get(signal);
  if (!set) {
    const callbacks = new Set<() => void>();
    set = callbacks;
    waiting.set(signal, callbacks);
    signal.addEventListener(
      'abort',
      () => {
        waiting.delete(signal);
        for (const f of callbacks) f();
        callbacks.clear();
      },
      { once: true },
    );
  }
  const callbacks = set;
  callbacks.add(fn);
  return () => void callbacks.delete(fn);
}
