// The full module (the main module with fitContext, repairContext and
// compactRequestBody), loaded the first time one of them is called, and
// the stashes it works with: for each stash of the main module a stash of
// its own over the same storage.

/**
 * Over the main module `main` and `loadFull()` (the full module's
 * exports, instantiated, or a promise of them): `call(options, f)` loads
 * the full module (once; a load that failed is tried again on the next
 * call), and resolves to `f(full, options)` with `options.stash` (a stash
 * of the main module) replaced by the full module's stash over the same
 * storage: opened on first use, closed when the main module's stash is,
 * let go of with it. `ownError` turns what the full module throws into
 * the main module's `CtxpackError`.
 */
function fullModule(main, loadFull, ownError) {
  let loading = null;
  /** The full module once loaded. */
  let loaded = null;
  /** The profiles registered with the main module, in order: the full module is given them too. */
  const profiles = [];
  const twins = new WeakMap();
  /** Each twin's promise, once resolved, to what it resolved to. */
  const opened = new WeakMap();
  // Closing or freeing a stash lets go of its twin (and the twin's
  // memory) too: a stash with a twin is this module's and open, so a call
  // with it needs no check of the main module's (the next call with a
  // closed or freed one asks for a twin, and is refused as any call is).
  const prototype = main.Stash?.prototype;
  for (const name of ['close', 'free']) {
    const own = prototype?.[name];
    if (typeof own !== 'function' || own.__closesTwin) continue;
    const closing = function () {
      const twin = twins.get(this);
      twins.delete(this);
      twin?.then((t) => t.close(), () => undefined);
      return own.call(this);
    };
    closing.__closesTwin = true;
    prototype[name] = closing;
    if (name === 'free' && typeof Symbol.dispose === 'symbol' && prototype[Symbol.dispose] === own) prototype[Symbol.dispose] = closing;
  }

  function load() {
    if (loading === null) {
      const started = Promise.resolve().then(loadFull).then((full) => {
        for (const [id, profile] of profiles) full.registerModelProfile(id, profile);
        loaded = full;
        return full;
      });
      loading = started;
      started.catch(() => {
        if (loading === started) loading = null;
      });
    }
    return loading;
  }

  /**
   * `options` with the full module's twin of its stash, or a promise of it
   * while the twin opens. The main module's own checks (a closed stash,
   * another copy's) come with what opens the twin, asked for once: a stash
   * closed or freed since has no twin.
   */
  function twinned(full, options) {
    const stash = options?.stash;
    if (typeof stash !== 'object' || stash === null) return options;
    let twin = twins.get(stash);
    if (twin === undefined) {
      twin = full.Stash.__twin(main.__stashStorage(stash));
      twins.set(stash, twin);
      twin.then((t) => opened.set(twin, t), () => {
        if (twins.get(stash) === twin) twins.delete(stash);
      });
    }
    const open = opened.get(twin);
    return open !== undefined ? { ...options, stash: open } : twin.then((t) => ({ ...options, stash: t }));
  }

  return {
    async call(options, f) {
      try {
        // Once loaded and opened, no promise is waited for before `f`.
        const full = loaded ?? await load();
        let args = twinned(full, options);
        if (args instanceof Promise) args = await args;
        return await f(full, args);
      } catch (e) {
        throw ownError(e);
      } finally {
        // What the full module wrote (records, files, renewals) is read
        // afresh by the main module's next call.
        const stash = options?.stash;
        try {
          if (typeof stash?.__forgetListing === 'function') stash.__forgetListing();
        } catch {
          // A stash freed by now has no listing to forget (and the call
          // says what became of it).
        }
      }
    },
    /**
     * After a call of the main module with `options` (which may have
     * written to its stash): the full module's twin of that stash reads
     * the storage afresh on its next call.
     */
    wrote(options) {
      const stash = options?.stash;
      if (typeof stash !== 'object' || stash === null) return;
      twins.get(stash)?.then((t) => t.__forgetListing(), () => undefined);
    },
    /**
     * `registerModelProfile` of the main module, and of the full module
     * (now if loaded, else when it loads): each module has its own
     * registry.
     */
    registerModelProfile(id, profile) {
      const registered = main.registerModelProfile(id, profile);
      profiles.push([id, profile]);
      loaded?.registerModelProfile(id, profile);
      return registered;
    },
    /** True once the full module was asked for. */
    loaded: () => loading !== null,
  };
}

export { fullModule };
