// The codec module, loaded on first use, and the resize over it.

/**
 * The codec module as `loadCodec()` gives it (a fresh instance, or a
 * promise of one): `codecModule()` loads it on first use (a load that
 * failed is tried again on the next use), `codecResize` encodes with it,
 * and `loaded()` is true once it was asked for.
 */
function codecLoader(loadCodec) {
  let codec = null;
  function codecModule() {
    if (codec === null) {
      const loading = (async () => loadCodec())();
      codec = loading;
      loading.catch(() => {
        if (codec === loading) codec = null;
      });
    }
    return codec;
  }

  /**
   * Encodes `image` at `target` with the codec module (loaded on first use).
   * A trap (WebAssembly.RuntimeError) leaves the instance's memory as it was
   * mid-call, so the next call gets a fresh instance.
   */
  async function codecResize(image, target) {
    const loading = codecModule();
    const m = await loading;
    try {
      return m.transcodeImage(image.data, target.width, target.height, target.mime, target.quality);
    } catch (e) {
      if (e instanceof WebAssembly.RuntimeError && codec === loading) codec = null;
      throw e;
    }
  }

  return { codecModule, codecResize, loaded: () => codec !== null };
}

export { codecLoader };
