// The pictures the main module puts where an API takes a picture and nothing
// else: it leaves the PNG encoder out, and the extras module draws them.

/**
 * A function handing a module (`module`, or the one it is called with),
 * once it can take it (on the first call that may need it: in browsers the
 * modules are instantiated by `init()`, after binding), the extras module's
 * drawing.
 */
function pictureDrawing(module, extras) {
  let handed = false;
  return function handOver(given = module) {
    if (handed) return;
    given.__setPictureDrawer((text) => extras().drawPicture(text));
    handed = true;
  };
}

export { pictureDrawing };
