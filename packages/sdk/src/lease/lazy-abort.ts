/**
 * An abort signal made on first read. Every held lock, permit and read-write grant owns
 * abort signals that most callers never read; making them at each grant was a tenth of the
 * SDK's CPU per lock cycle in the bench's profile (`new AbortController` in Node 20 sets up
 * an event target). Aborting before anyone read the signal only keeps the reason; a signal
 * read afterwards is already aborted with it, as an eagerly made one would be
 * (docs/decisions/0201).
 */
export class LazyAbort {
  private controller: AbortController | null = null;
  private abortedWith: { readonly reason: unknown } | null = null;

  /** The signal, made now if nobody read it before. */
  get signal(): AbortSignal {
    if (this.controller === null) {
      this.controller = new AbortController();
      if (this.abortedWith !== null) this.controller.abort(this.abortedWith.reason);
    }
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.abortedWith !== null;
  }

  /** The first abort's reason; undefined while not aborted. */
  get reason(): unknown {
    return this.abortedWith?.reason;
  }

  /** Aborts with `reason` unless already aborted (the first reason stays); true if it did. */
  abort(reason: unknown): boolean {
    if (this.abortedWith !== null) return false;
    this.abortedWith = { reason };
    this.controller?.abort(reason);
    return true;
  }
}
