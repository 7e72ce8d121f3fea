// Counts the text the engine's TextEncoder.encodeInto copies into wasm
// memory (the length of each source): the library finds the encoder on
// first use, so import this before ctxpack.
const realEncodeInto = TextEncoder.prototype.encodeInto;

/** The length of each text copied, in order. */
export const copied = [];

TextEncoder.prototype.encodeInto = function (source, destination) {
  copied.push(source.length);
  return realEncodeInto.call(this, source, destination);
};
