'use strict';
// An upstream's refusal, read as text for parseProviderError: error bodies
// are small, and may come compressed as the client asked.
const zlib = require('node:zlib');
const { promisify } = require('node:util');

const DECODERS = {
  gzip: promisify(zlib.gunzip),
  'x-gzip': promisify(zlib.gunzip),
  deflate: promisify(zlib.inflate),
  br: promisify(zlib.brotliDecompress),
};

/** The text of an error body `bytes` sent with `encoding`; null when it cannot be decoded. */
async function readError(bytes, encoding) {
  try {
    const decode = encoding === undefined || encoding === 'identity' ? null : DECODERS[encoding.toLowerCase()];
    if (encoding !== undefined && encoding !== 'identity' && !decode) return null;
    return (decode ? await decode(bytes) : bytes).toString('utf8');
  } catch {
    return null;
  }
}

module.exports = { readError };
