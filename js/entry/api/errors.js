// The extras module's errors as the main module's `CtxpackError`, so that
// every error ctxpack throws is of the one class.

/**
 * Over the main module `main`: `ownError(e)`, what the extras module
 * threw as a `CtxpackError` of the main module (the same code, message,
 * path and cause; anything else as it was); `own(f)`, `f()` (a synchronous
 * call of the extras module) with its error thrown as one; and
 * `unwrap(result)`, the extras module's `{ok}` or its `{error}` thrown as
 * one.
 */
function ownErrors(main) {
  function ownError(e) {
    if (e?.name !== 'CtxpackError' || e instanceof main.CtxpackError) return e;
    const own = main.__ctxpackError(e.code, e.message, e.path ?? undefined);
    if (e.cause !== undefined) own.cause = e.cause;
    return own;
  }

  function own(f) {
    try {
      return f();
    } catch (e) {
      throw ownError(e);
    }
  }

  function unwrap(result) {
    if (result?.error) throw main.__ctxpackError(result.error.code, result.error.message, result.error.path);
    return result?.ok;
  }

  return { ownError, own, unwrap };
}

export { ownErrors };
