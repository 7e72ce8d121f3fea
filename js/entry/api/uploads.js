// The app's upload function shared by calls at once (offload).

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

export { sharedUploads };
