// The functions every flavour's entry adds to the main module's exports,
// bound once over the wasm modules: the markdown functions, routeArtifact,
// historyImageTool, historyImageTexts and
// the refusal readers joined to the markdown module, the codec module loaded
// on first use, and fitContext and repairContext given their default resize.
// Each entry (js/entry/<flavour>.js) loads the modules its own way and hands
// them to `bindApi`. This file is an ES module; the build writes the Node
// flavour's copy as CommonJS (its one `export` line becomes `module.exports`).

/**
 * The public functions over the flavour's modules:
 * - `main`: the main module's exports, instantiated;
 * - `markdown()`: the markdown module's exports (the flavour may load it on
 *   this first call);
 * - `markdownReady()` (optional): resolves once the markdown module can be
 *   called; the asynchronous functions await it first;
 * - `loadCodec()`: a fresh instance of the codec module, or a promise of
 *   one; called on first use, again after a trap or a failed load;
 * - `defaultResize` (optional): what fitContext and repairContext resize
 *   with when the caller gives no `resize`; by default `codecResize`.
 *
 * Also returns `codecModule()` (the promise of the codec module, loading it
 * if need be) and `codecLoaded()` (true once it was asked for), which the
 * entries use without exporting them as such.
 */
/** Marks an array, then its length, in a snapshot. */
const ARRAY = {};
/** Marks an object, then its number of keys, in a snapshot. */
const OBJECT = {};

/**
 * What was read of a message, to tell next time whether it is unchanged
 * ({@link unchanged}): one flat list, in the order a walk meets them, of
 * every leaf (strings compared by value), each array's length, each
 * object's keys in order. `null` when a message holds anything but plain
 * objects, arrays and primitives (a `Uint8Array`, a class instance, a
 * function), or nests deeper than the library reads: such a message is
 * read on every call.
 */
function snapshot(message) {
  const flat = [];
  return record(message, flat, 0) ? flat : null;
}

function record(value, flat, depth) {
  if (typeof value !== 'object' || value === null) {
    flat.push(value);
    return typeof value !== 'function';
  }
  if (depth > 256) return false;
  if (Array.isArray(value)) {
    flat.push(ARRAY, value.length);
    for (let i = 0; i < value.length; i++) if (!record(value[i], flat, depth + 1)) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  const at = flat.length;
  flat.push(OBJECT, 0);
  let keys = 0;
  for (const key in value) {
    flat.push(key);
    if (!record(value[key], flat, depth + 1)) return false;
    keys++;
  }
  flat[at + 1] = keys;
  return true;
}

/** Whether `message` is, leaf by leaf, what `flat` recorded. */
function unchanged(message, flat) {
  return matches(message, flat, 0) === flat.length;
}

/** Where `value` ends in `flat` when it matches from `at`, else -1. */
function matches(value, flat, at) {
  if (typeof value !== 'object' || value === null) return flat[at] === value ? at + 1 : -1;
  if (Array.isArray(value)) {
    if (flat[at] !== ARRAY || flat[at + 1] !== value.length) return -1;
    at += 2;
    for (let i = 0; i < value.length && at >= 0; i++) at = matches(value[i], flat, at);
    return at;
  }
  if (flat[at] !== OBJECT) return -1;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return -1;
  const keys = flat[at + 1];
  at += 2;
  let n = 0;
  for (const key in value) {
    if (n === keys || flat[at] !== key) return -1;
    at = matches(value[key], flat, at + 1);
    if (at < 0) return -1;
    n++;
  }
  return n === keys ? at : -1;
}

/** What the memory holds of a message object met once: only that it was met. */
const MET = {};

/**
 * What the main module's calls over messages (compactContext, estimate,
 * expandContext, fitContext) remember of message objects between calls. Beside each message object
 * the memory notes, the first time it is met, only that it was. The second
 * time, the object is read and remembered (key -1 asks the main module for
 * a digest of it), and the memory keeps what was read of it with the
 * digest's key (0 when the core made none: a message compaction may
 * change, read on every call). From then on a message that is, leaf by
 * leaf, what was read is handed over by its key and not read; one that
 * changed is read, and remembered again. A message sent once (a server
 * parses new objects from every request) costs one note and nothing in the
 * main module. A WeakMap: a conversation no longer sent is let go with its
 * messages.
 */
function messageMemory() {
  const read = new WeakMap();
  return {
    /** The key of each message for the main module, and a snapshot of each to be read and remembered. */
    look(messages) {
      const keys = new Float64Array(messages.length);
      const snaps = new Array(messages.length);
      for (let i = 0; i < messages.length; i++) {
        const m = messages[i];
        if (typeof m !== 'object' || m === null) continue;
        const seen = read.get(m);
        if (seen === undefined) read.set(m, MET);
        else if (seen !== MET && unchanged(m, seen.snap)) {
          // Key 0: unchanged, but the core keeps no digest of it.
          keys[i] = seen.key;
        } else {
          snaps[i] = snapshot(m);
          if (snaps[i] !== null) keys[i] = -1;
        }
      }
      return { keys, snaps };
    },
    /** Remembers what was read of each message snapshotted, with the key the main module `learned` for it. */
    learn(messages, snaps, learned) {
      for (let i = 0; i < messages.length; i++) {
        // A message the core made no digest of (it may change it: an
        // inline image) keeps key 0, and is read on every call.
        if (snaps[i] !== undefined) read.set(messages[i], snaps[i] === null ? MET : { snap: snaps[i], key: learned[i] });
      }
    },
  };
}

/**
 * An asynchronous call of the main module over messages (`call`:
 * `__compactContext`, `__expandContext`, `__fitContext` or
 * `__repairContext`), with `memory` (see messageMemory): it answers the
 * indices and values of the messages it changed (each other message is the
 * caller's own), and whatever else the call answers (a repair's refusal).
 */
function rememberingChanges(call, memory) {
  return function (messages, options) {
    if (!Array.isArray(messages)) return call(messages, options, undefined);
    const { keys, snaps } = memory.look(messages);
    return call(messages, options, keys).then(({ changed, values, report, keys: learned, ...rest }) => {
      memory.learn(messages, snaps, learned);
      const out = messages.slice();
      for (let k = 0; k < changed.length; k++) out[changed[k]] = values[k];
      return { messages: out, report, ...rest };
    });
  };
}

/**
 * `report` saying whether its model is past its end-of-life date: the core
 * knows the date, the host the day (UTC).
 */
function withRetirement(report) {
  const today = new Date().toISOString().slice(0, 10);
  report.pastRetirement = report.modelRetired != null && report.modelRetired <= today;
  return report;
}

/** estimate over the main module, with `memory` (see messageMemory). */
function rememberingEstimate(main, memory) {
  return function estimate(messages, options) {
    if (!Array.isArray(messages)) return withRetirement(main.__estimate(messages, options, undefined).report);
    const { keys, snaps } = memory.look(messages);
    const { report, keys: learned } = main.__estimate(messages, options, keys);
    memory.learn(messages, snaps, learned);
    return withRetirement(report);
  };
}

/** Uploads in flight, per upload function, by provider, format, account and image id. */
const UPLOADS = new WeakMap();

/**
 * `options` whose `offload.upload` is shared by calls at once: an image two
 * calls upload at the same time (neither found its file in the stash yet)
 * is uploaded once, both given its file. An upload that ended is
 * forgotten: the stash remembers its file from then on.
 */
function sharedUploads(options) {
  const offload = options?.offload;
  if (typeof offload?.upload !== 'function') return options;
  const upload = offload.upload;
  let pending = UPLOADS.get(upload);
  if (pending === undefined) UPLOADS.set(upload, (pending = new Map()));
  // Whose file: the provider named (else the format's own) and the account.
  const owner = [offload.provider, options.format, offload.account].map((v) => (typeof v === 'string' ? v : '')).join('\u0000');
  const shared = (image) => {
    const key = `${owner}\u0000${image.md5}`;
    let uploading = pending.get(key);
    if (uploading === undefined) {
      uploading = Promise.resolve()
        .then(() => upload(image))
        .finally(() => pending.delete(key));
      pending.set(key, uploading);
    }
    return uploading;
  };
  return { ...options, offload: { ...offload, upload: shared } };
}

/**
 * compactRequestBody over the main module: the body text crosses in once;
 * what comes back is each changed message's text and the UTF-16 range it
 * replaces, spliced here into the caller's string (the same string when
 * nothing changed).
 */
function requestBodyCompaction(main) {
  return function compactRequestBody(body, options) {
    return main.__compactRequestBody(body, sharedUploads(options)).then(({ ranges, texts, report }) => {
      if (texts.length === 0) return { body, report };
      let out = '';
      let at = 0;
      for (let k = 0; k < texts.length; k++) {
        out += body.slice(at, ranges[2 * k]) + texts[k];
        at = ranges[2 * k + 1];
      }
      return { body: out + body.slice(at), report };
    });
  };
}

function bindApi({ main, markdown, markdownReady, loadCodec, defaultResize }) {
  const ready = markdownReady ?? (() => undefined);

  /** The markdown module's parser, as the main module calls it. */
  const parse = (text) => markdown().parseMarkdownImages(text);

  /**
   * What the markdown module threw, as the main module's `CtxpackError`
   * (the same code, message, path and cause), so that every error ctxpack
   * throws is of the one class; anything else as it was.
   */
  function ownError(e) {
    if (e?.name !== 'CtxpackError' || e instanceof main.CtxpackError) return e;
    const own = main.__ctxpackError(e.code, e.message, e.path ?? undefined);
    if (e.cause !== undefined) own.cause = e.cause;
    return own;
  }

  /** The markdown module's result, or its error thrown as a `CtxpackError`. */
  function unwrap(result) {
    if (result?.error) throw main.__ctxpackError(result.error.code, result.error.message, result.error.path);
    return result?.ok;
  }

  let codec = null;
  /** The codec module (a promise of it), loaded on first use; a load that failed is tried again on the next use. */
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

  const resize = defaultResize ?? codecResize;
  const memory = messageMemory();

  const compactContext = rememberingChanges((messages, options, keys) => main.__compactContext(messages, sharedUploads(options), keys), memory);
  const fitContext = rememberingChanges((messages, options, keys) => main.__fitContext(messages, sharedUploads(options), resize, keys), memory);

  return {
    /** Replaces history images with placeholders (see the declaration); messages it cannot change are remembered between calls. */
    compactContext,
    /** Puts originals back for placeholders (see the declaration); messages are remembered between calls as compactContext's are. */
    expandContext: rememberingChanges(main.__expandContext, memory),
    /** Accounts for a request (see the declaration); messages are remembered between calls as compactContext's are. */
    estimate: rememberingEstimate(main, memory),
    /** compactContext for a request body as JSON text (see the declaration). */
    compactRequestBody: requestBodyCompaction(main),
    /** Finds the images in markdown `text`. */
    parseMarkdownImages: (text) => main.__parseMarkdownImages(text, parse),
    /** Turns user text with markdown images into ordered content parts (the markdown module's). */
    toMultimodal: async (text, options) => {
      await ready();
      return markdown().__toMultimodal(text, options).catch((e) => {
        throw ownError(e);
      });
    },
    /** True when any message holds an image or file part, a placeholder, or a markdown image. */
    hasMultimedia: (messages, options) => main.__hasMultimedia(messages, options, parse),
    /** Which part an artifact becomes for a model's capabilities (see the declaration). */
    routeArtifact: (artifact, capabilities, options) => unwrap(markdown().routeArtifact(artifact, capabilities, options)),
    /** The get_history_image tool definition in a dialect (see the declaration). */
    historyImageTool: (dialect) => unwrap(markdown().historyImageTool(dialect)),
    /** What an answer of the tool says besides the image (see the declaration). */
    historyImageTexts: (id) => markdown().historyImageTexts(String(id ?? '')),
    parseProviderError: (textOrError) => markdown().parseProviderError(textOrError),
    parseContextLengthError: (text) => markdown().parseContextLengthError(text),
    codecResize,
    /** Fits a request to its model (see the declaration); messages are remembered between calls as compactContext's are. */
    fitContext,
    /** Fits a refused request to what the refusal names (see the declaration): the markdown module reads the refusal; messages are remembered as fitContext's are. */
    repairContext: async (messages, error, options) => {
      await ready();
      const refusal = markdown().parseProviderError(error);
      const repair = (m, o, keys) => main.__repairContext(m, error, refusal, sharedUploads(o), resize, keys);
      return rememberingChanges(repair, memory)(messages, options);
    },
    codecModule,
    codecLoaded: () => codec !== null,
  };
}

export { bindApi };
